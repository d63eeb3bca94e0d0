/* Engine smoke test of the system-call model (run.sh runs it when XC_ENGINE names an xcheck
 * binary built from this tree): `xcheck run` explores this program symbolically with the
 * model linked in. It opens a symbolic argument (KLEE's rule forks on "A"), seeks by a
 * symbolic amount, reads and writes (symbolic offsets and lengths must be made concrete by
 * forking: the engine refuses memcpy of a symbolic length), injects failures, and checks
 * that the reset gives the same stdin back. Every path must end without an error and
 * without an "unknown". The stand-ins below replace the engine primitives that whole-program
 * checks will provide. */
#include <xcheck/posix.h>

void __xc_output(int stream, const void *buf, size_t n) {
    (void)stream;
    (void)buf;
    (void)n;
}
void __xc_exit(int status) { klee_silent_exit(status); }
void __xc_exit_signal(int sig) { klee_silent_exit(128 + sig); }
long __xc_host_file(const char *path, char **data) {
    (void)path;
    (void)data;
    return -XC_ENOENT;
}
void __xc_note_syscall(long n) { (void)n; }
void __xc_note_pinned(long what) { (void)what; }

#define SYS(n, a, b, c) __xc_syscall((n), (long)(a), (long)(b), (long)(c), 0, 0, 0)

int main(void) {
    char *args[] = {"prog", "--sym-args", "0", "1", "1", "--sym-files", "1", "6",
                    "--sym-stdin", "2", "--max-fail", "1", 0};
    long *b = __xc_env_init(12, args);
    long argc = b[0];
    char **argv = (char **)(b + 1);
    char buf[8];

    if (argc > 1) {
        long fd = SYS(XC_SYS_open, argv[1], XC_O_RDWR, 0);
        if (fd >= 0) {
            unsigned char k = (unsigned char)argv[1][0] - 'A';   /* 0: symbolic below */
            long seek;
            klee_make_symbolic(&seek, sizeof seek, "seek");
            if (seek < 0 || seek > 7)
                return 0;
            long off = SYS(XC_SYS_lseek, fd, seek + k, XC_SEEK_SET);
            klee_assert(off == seek);
            long r = SYS(XC_SYS_read, fd, buf, 3);
            klee_assert(r == -XC_EIO || (r >= 0 && r <= 3));
            long w = SYS(XC_SYS_write, fd, "zz", 2);
            klee_assert(w == -XC_EIO || w == 2);
            struct xc_stat st;
            klee_assert(SYS(XC_SYS_fstat, fd, &st, 0) == 0);
            klee_assert(st.st_size >= 6 && st.st_size <= 9);
            if (r > 0)
                SYS(XC_SYS_write, 1, buf, r);
        }
    }
    long r = SYS(XC_SYS_read, 0, buf, 8);
    __xc_env_reset();
    long r2 = SYS(XC_SYS_read, 0, buf, 8);
    klee_assert(r2 == 2 || r2 == -XC_EIO);
    klee_assert(r == r2 || r == -XC_EIO || r2 == -XC_EIO || argc > 1);
    return 0;
}
