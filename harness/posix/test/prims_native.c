/* Native stand-ins for the engine primitives the system-call model calls, so the model can
 * be compiled with the host compiler and tested concretely (run.sh).
 *
 * klee_make_symbolic fills an object from the input file named by $XC_INPUT: one object a
 * line, "name hex-bytes" or "name s:text" (missing bytes are zeros, an absent name is all
 * zeros). Every object made is logged as "name size" to the file named by $XC_OBJLOG.
 * klee_assume aborts when false; klee_prefer_cex does nothing; klee_report_error prints and exits with status 77;
 * __xc_output writes to the real fd 1 or 2 (stream 3, the files changed, into xc_native_files); __xc_exit is _exit; __xc_exit_signal prints the
 * signal and exits with 128 + sig; __xc_host_file reads a real file; __xc_note_syscall
 * counts into xc_native_notes / xc_native_last_note. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xcheck/posix.h>

long xc_native_notes, xc_native_last_note;

static int hexval(int c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Finds `name` in the input file and copies its bytes (at most n) into p. */
static void fill_from_input(unsigned char *p, size_t n, const char *name) {
    memset(p, 0, n);
    const char *path = getenv("XC_INPUT");
    if (!path)
        return;
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        exit(70);
    }
    char line[16384];
    size_t nlen = strlen(name);
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (strncmp(line, name, nlen) != 0 || line[nlen] != ' ')
            continue;
        const char *v = line + nlen + 1;
        size_t k = 0;
        if (v[0] == 's' && v[1] == ':') {
            for (v += 2; *v; v++) {
                if (k >= n) {
                    fprintf(stderr, "input %s longer than its object (%zu)\n", name, n);
                    exit(70);
                }
                p[k++] = (unsigned char)*v;
            }
        } else {
            for (; *v; v++) {
                if (*v == ' ')
                    continue;
                int hi = hexval(v[0]), lo = v[1] ? hexval(v[1]) : -1;
                if (hi < 0 || lo < 0) {
                    fprintf(stderr, "bad hex for %s\n", name);
                    exit(70);
                }
                if (k >= n) {
                    fprintf(stderr, "input %s longer than its object (%zu)\n", name, n);
                    exit(70);
                }
                p[k++] = (unsigned char)(hi * 16 + lo);
                v++;
            }
        }
        break;
    }
    fclose(f);
}

void klee_make_symbolic(void *addr, size_t nbytes, const char *name) {
    fill_from_input(addr, nbytes, name);
    const char *log = getenv("XC_OBJLOG");
    if (log) {
        FILE *f = fopen(log, "a");
        if (f) {
            fprintf(f, "%s %zu\n", name, nbytes);
            fclose(f);
        }
    }
}

void klee_assume(uintptr_t condition) {
    if (!condition) {
        fprintf(stderr, "klee_assume: condition is false\n");
        abort();
    }
}

void klee_report_error(const char *file, int line, const char *message, const char *suffix) {
    fprintf(stderr, "KLEE-ERROR %s:%d: %s (%s)\n", file, line, message, suffix);
    _exit(77);
}

void klee_prefer_cex(void *object, uintptr_t condition) {
    (void)object;
    (void)condition;
}

int klee_is_symbolic(uintptr_t n) {
    (void)n;
    return 0;
}

unsigned char xc_native_files[4096];
size_t xc_native_files_len;

void __xc_output(int stream, const void *buf, size_t n) {
    if (stream == 3) {
        if (n > sizeof xc_native_files - xc_native_files_len)
            abort();
        memcpy(xc_native_files + xc_native_files_len, buf, n);
        xc_native_files_len += n;
        return;
    }
    if (stream != 1 && stream != 2) {
        fprintf(stderr, "__xc_output: bad stream %d\n", stream);
        abort();
    }
    const char *p = buf;
    while (n) {
        ssize_t w = write(stream, p, n);
        if (w <= 0)
            abort();
        p += w;
        n -= (size_t)w;
    }
}

void __xc_exit(int status) { _exit(status); }

void __xc_exit_signal(int sig) {
    fprintf(stderr, "killed by signal %d\n", sig);
    _exit(128 + sig);
}

long __xc_host_file(const char *path, char **data) {
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -errno;
    struct stat st;
    if (fstat(fd, &st) < 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return -EISDIR;
    }
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (len == cap)
            buf = realloc(buf, cap *= 2);
        ssize_t r = read(fd, buf + len, cap - len);
        if (r < 0) {
            int e = errno;
            close(fd);
            free(buf);
            return -e;
        }
        if (r == 0)
            break;
        len += (size_t)r;
    }
    close(fd);
    *data = buf;
    return (long)len;
}

void __xc_note_pinned(long what) { (void)what; }

void __xc_note_syscall(long n) {
    xc_native_notes++;
    xc_native_last_note = n;
}
