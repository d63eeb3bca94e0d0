/* The system-call model's environment: KLEE-style options (--sym-arg, --sym-args,
 * --sym-files, --sym-stdin, --max-fail) turned into symbolic inputs, the initial stack block
 * musl's __libc_start_main expects, failure injection, and the reset between program A and
 * program B (the same inputs, fresh copies of the argument strings). */
#include <xcheck/posix.h>

struct xc_arg {
    unsigned char *bytes;   /* pristine bytes, terminator included; never handed out */
    size_t len;
};

static struct xc_arg *xc_args;
static int xc_argc, xc_args_cap;
static int xc_ready;

static struct xc_file *xc_files;        /* --sym-files */
static struct xc_file xc_stdin;
static unsigned char xc_empty[1];

static unsigned xc_max_fail, xc_fail_left;
static int *xc_fail_obj[XC_FAIL_KINDS];
static unsigned xc_fail_calls[XC_FAIL_KINDS];

#define XC_MAX_ARGS 1024
#define XC_MAX_SYM_ARGS 100

__attribute__((noreturn)) static void xc_user_error(const char *msg) {
    klee_report_error(__FILE__, __LINE__, msg, "user.err");
}

/* "--name" or "-name". */
static int xc_is_opt(const char *a, const char *name) {
    if (a[0] != '-')
        return 0;
    a += a[1] == '-' ? 2 : 1;
    return xc_streq(a, name);
}

static int xc_is_sym_prefix(const char *a) {
    if (a[0] != '-')
        return 0;
    a += a[1] == '-' ? 2 : 1;
    return a[0] == 's' && a[1] == 'y' && a[2] == 'm' && a[3] == '-';
}

static unsigned long xc_number(const char *s, const char *msg) {
    unsigned long v = 0;
    if (!*s)
        xc_user_error(msg);
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > 100000000UL)
            xc_user_error(msg);
        v = v * 10 + (unsigned long)(*s - '0');
    }
    return v;
}

static void xc_push_arg(unsigned char *bytes, size_t len) {
    if (xc_argc == XC_MAX_ARGS)
        xc_user_error("too many arguments (at most 1024)");
    if (xc_argc == xc_args_cap) {
        int cap = xc_args_cap ? xc_args_cap * 2 : 16;
        xc_args = realloc(xc_args, (size_t)cap * sizeof *xc_args);
        xc_args_cap = cap;
    }
    xc_args[xc_argc].bytes = bytes;
    xc_args[xc_argc].len = len;
    xc_argc++;
}

/* A symbolic argument of up to n characters: object argNN of n + 1 bytes, the last one
 * constrained to be the terminator. */
static void xc_sym_arg(unsigned long n, unsigned *num) {
    if (*num >= XC_MAX_SYM_ARGS)
        xc_user_error("no more than 100 symbolic arguments allowed");
    char *name = malloc(6);
    name[0] = 'a';
    name[1] = 'r';
    name[2] = 'g';
    name[3] = (char)('0' + *num / 10);
    name[4] = (char)('0' + *num % 10);
    name[5] = 0;
    (*num)++;
    unsigned char *s = malloc(n + 1);
    klee_make_symbolic(s, n + 1, name);
    klee_assume(s[n] == 0);
    s[n] = 0;
    xc_push_arg(s, n + 1);
}

static void xc_file_node(struct xc_file *f, const char *path, unsigned char *data, size_t size,
                         uint64_t ino) {
    memset(f, 0, sizeof *f);
    f->name = f->init_name = path;
    f->data = f->init_data = data;
    f->size = f->init_size = size;
    f->mode = f->init_mode = XC_S_IFREG | 0644;
    f->exists = f->init_exists = 1;
    f->ino = ino;
}

/* KLEE 3.x's stat object of a symbolic file or of stdin ("A_data_stat", "stdin_stat"): a
 * 144-byte struct stat64 (x86-64), made right after the file's bytes. KLEE leaves it
 * symbolic, with preferences for plausible values (klee_prefer_cex), and overwrites st_size
 * and st_blocks. Here what a native replay can give a file is left symbolic: the permission
 * bits (st_mode & 0777; the file stays regular) and the access and modification times
 * (whole seconds from 1970 up to 2038, which every file system keeps: the low 31 bits).
 * They are taken as masks of the object's bytes, so no assumption joins the path condition
 * for them; the test records the masked values, preferably 0644 and 2020-01-01
 * (klee_prefer_cex). The rest is pinned
 * to what the model's stat of the file gives (device 0x803, inode 10 + k or 9 for stdin,
 * one link, owner 0, the file's size, 8 blocks, block size 4096, change time 2020-01-01):
 * exploring, those fresh symbolic bytes are overwritten, so that no path forks on them and
 * no constraint joins the path condition (a whole symbolic object was measured to cost
 * about 40% on wc), and a test records them (env_options::stat_of_model in xcheck);
 * replaying, its bytes are concrete and must be those values (a false assumption
 * otherwise). The model's stat of the file then starts from the object. */
static void xc_stat_object(struct xc_file *f, const char *name) {
    struct xc_stat pin;
    xc_fs_stat(f, &pin);
    struct xc_stat *s = malloc(sizeof *s);
    klee_make_symbolic(s, sizeof *s, name);
    uint32_t mode = XC_S_IFREG | (s->st_mode & 0777);
    int64_t atime = s->st_atime_sec & 0x7fffffff, mtime = s->st_mtime_sec & 0x7fffffff;
    /* A test gives them the usual values where its path allows, as KLEE's do. */
    klee_prefer_cex(s, (mode & 0777) == 0644);
    klee_prefer_cex(s, atime == XC_EPOCH);
    klee_prefer_cex(s, mtime == XC_EPOCH);
    pin.st_mode = mode;
    pin.st_atime_sec = atime;
    pin.st_mtime_sec = mtime;
    const uint64_t *w = (const uint64_t *)(void *)s, *p = (const uint64_t *)(void *)&pin;
    if (!klee_is_symbolic(w[0])) {
        uint64_t diff = 0;
        for (unsigned i = 0; i < sizeof pin / sizeof *p; i++)
            diff |= w[i] ^ p[i];
        klee_assume(diff == 0);
    }
    memcpy(s, &pin, sizeof pin);
    f->stat = s;
    f->mode = f->init_mode = mode;
}

static int *xc_fail_counter(const char *name) {
    int *p = malloc(sizeof(int));
    klee_make_symbolic(p, sizeof(int), name);
    return p;
}

static long *xc_block(void) {
    static const unsigned char random16[16] = {
        0x3c, 0x91, 0x5e, 0x07, 0xa2, 0x48, 0xd3, 0x6f,
        0x19, 0xe4, 0x72, 0xbb, 0x05, 0x8d, 0xc6, 0x2a,
    };
    int argc = xc_argc;
    long *b = malloc(sizeof(long) * (size_t)(argc + 19));
    b[0] = argc;
    for (int i = 0; i < argc; i++) {
        /* Zero padding after the terminator: musl's string functions read whole aligned
         * words, which may reach up to 7 bytes past it (harmless in a real process, whose
         * strings sit in one stack area; out of bounds for an object of the exact size). */
        size_t len = xc_args[i].len, size = (len + 14) & ~(size_t)7;
        unsigned char *s = malloc(size);
        memcpy(s, xc_args[i].bytes, len);
        memset(s + len, 0, size - len);
        b[1 + i] = (long)s;
    }
    b[1 + argc] = 0;                    /* end of argv */
    b[2 + argc] = 0;                    /* empty environment */
    unsigned char *rnd = malloc(16);
    memcpy(rnd, random16, 16);
    long *aux = b + 3 + argc;
    long pairs[16] = {
        XC_AT_PAGESZ, XC_PAGE_SIZE, XC_AT_UID, 0, XC_AT_EUID, 0, XC_AT_GID, 0,
        XC_AT_EGID, 0, XC_AT_SECURE, 0, XC_AT_RANDOM, (long)rnd, XC_AT_NULL, 0,
    };
    memcpy(aux, pairs, sizeof pairs);
    return b;
}

long *__xc_env_init(int argc, char **argv) {
    if (xc_ready)
        xc_user_error("__xc_env_init called twice");
    unsigned nsym = 0, nfiles = 0;
    unsigned long file_len = 0, stdin_len = 0;
    int seen_files = 0, seen_stdin = 0;

    for (int k = 0; k < argc;) {
        const char *a = argv[k];
        if (k == 0) {
            /* the program name */
        } else if (xc_is_opt(a, "sym-arg")) {
            const char *msg = "--sym-arg expects an integer argument <max-len>";
            if (k + 1 >= argc)
                xc_user_error(msg);
            unsigned long n = xc_number(argv[k + 1], msg);
            if (n > XC_MAX_SYM_LEN)
                xc_user_error("--sym-arg: length too large (at most 4096)");
            xc_sym_arg(n, &nsym);
            k += 2;
            continue;
        } else if (xc_is_opt(a, "sym-args")) {
            const char *msg = "--sym-args expects three integer arguments "
                              "<min-argvs> <max-argvs> <max-len>";
            if (k + 3 >= argc)
                xc_user_error(msg);
            unsigned long lo = xc_number(argv[k + 1], msg);
            unsigned long hi = xc_number(argv[k + 2], msg);
            unsigned long n = xc_number(argv[k + 3], msg);
            if (lo > hi || hi == 0)
                xc_user_error("--sym-args: invalid range (need min <= max, max > 0)");
            if (n > XC_MAX_SYM_LEN)
                xc_user_error("--sym-args: length too large (at most 4096)");
            if (nsym + hi > XC_MAX_SYM_ARGS)
                xc_user_error("no more than 100 symbolic arguments allowed");
            int count = klee_range((int)lo, (int)hi + 1, "n_args");
            /* Branching on the count makes it concrete on every path. */
            for (int i = 0; i < count; i++)
                xc_sym_arg(n, &nsym);
            k += 4;
            continue;
        } else if (xc_is_opt(a, "sym-files")) {
            const char *msg = "--sym-files expects two integer arguments "
                              "<no-sym-files> <sym-file-len>";
            if (k + 2 >= argc)
                xc_user_error(msg);
            if (seen_files)
                xc_user_error("--sym-files given twice");
            seen_files = 1;
            nfiles = (unsigned)xc_number(argv[k + 1], msg);
            file_len = xc_number(argv[k + 2], msg);
            if (nfiles > 26)
                xc_user_error("--sym-files: at most 26 files (A to Z)");
            if (nfiles && file_len == 0)
                xc_user_error("--sym-files: the file size must be positive");
            if (file_len > XC_MAX_SYM_LEN)
                xc_user_error("--sym-files: file size too large (at most 4096)");
            k += 3;
            continue;
        } else if (xc_is_opt(a, "sym-stdin")) {
            const char *msg = "--sym-stdin expects one integer argument <sym-stdin-len>";
            if (k + 1 >= argc)
                xc_user_error(msg);
            if (seen_stdin)
                xc_user_error("--sym-stdin given twice");
            seen_stdin = 1;
            stdin_len = xc_number(argv[k + 1], msg);
            if (stdin_len > XC_MAX_SYM_LEN)
                xc_user_error("--sym-stdin: size too large (at most 4096)");
            k += 2;
            continue;
        } else if (xc_is_opt(a, "max-fail")) {
            const char *msg = "--max-fail expects an integer argument <max-failures>";
            if (k + 1 >= argc)
                xc_user_error(msg);
            xc_max_fail = (unsigned)xc_number(argv[k + 1], msg);
            k += 2;
            continue;
        } else if (xc_is_opt(a, "fd-fail")) {
            xc_max_fail = 1;
            k += 1;
            continue;
        } else if (xc_is_opt(a, "save-all-writes")) {
            /* Writes always land in full here (files grow). */
            k += 1;
            continue;
        } else if (xc_is_opt(a, "sym-stdout")) {
            xc_user_error("--sym-stdout is not supported (stdout is compared, not symbolic)");
        } else if (xc_is_sym_prefix(a)) {
            xc_user_error("unknown --sym-* option (known: --sym-arg, --sym-args, "
                          "--sym-files, --sym-stdin)");
        }
        /* A concrete argument. */
        size_t len = xc_strlen(a) + 1;
        unsigned char *s = malloc(len);
        memcpy(s, a, len);
        xc_push_arg(s, len);
        k++;
    }

    /* Each symbolic file's bytes and stat, then stdin's, then the failure counters: the
     * objects and the order of KLEE 3.x's klee_init_fds (which KLEE's klee-replay re-runs
     * natively, taking a test's objects in this order). KLEE 2.x's names were "A-data" and
     * "A-data-stat", and it ended with "model_version"; KLEE 3.x has no such object. */
    xc_files = nfiles ? calloc(nfiles, sizeof *xc_files) : 0;
    for (unsigned i = 0; i < nfiles; i++) {
        /* File i is named 'A' + i; its objects are "A_data" and "A_data_stat". (Names are
         * built here, not taken from a table of strings: clang turns such tables into
         * relative lookups, llvm.load.relative, which an interpreter need not know.) */
        char *path = malloc(2), *name = malloc(7), *sname = malloc(12);
        path[0] = name[0] = sname[0] = (char)('A' + i);
        path[1] = 0;
        memcpy(name + 1, "_data", 6);
        memcpy(sname + 1, "_data_stat", 11);
        unsigned char *d = malloc(file_len);
        klee_make_symbolic(d, file_len, name);
        xc_file_node(&xc_files[i], path, d, file_len, 10 + i);
        xc_stat_object(&xc_files[i], sname);
    }
    xc_fs_set_sym_files(xc_files, nfiles);

    unsigned char *in = xc_empty;
    if (stdin_len) {
        in = malloc(stdin_len);
        klee_make_symbolic(in, stdin_len, "stdin");
    }
    xc_file_node(&xc_stdin, "", in, stdin_len, 9);
    if (stdin_len)
        xc_stat_object(&xc_stdin, "stdin_stat");
    xc_fs_add(&xc_stdin);   /* its empty name is never looked up */

    if (xc_max_fail) {
        /* KLEE's five counters, in its order. */
        xc_fail_obj[XC_FAIL_READ] = xc_fail_counter("read_fail");
        xc_fail_obj[XC_FAIL_WRITE] = xc_fail_counter("write_fail");
        xc_fail_obj[XC_FAIL_CLOSE] = xc_fail_counter("close_fail");
        xc_fail_obj[XC_FAIL_FTRUNCATE] = xc_fail_counter("ftruncate_fail");
        xc_fail_obj[XC_FAIL_GETCWD] = xc_fail_counter("getcwd_fail");
    }

    xc_ready = 1;
    xc_fd_setup(&xc_stdin);
    xc_sys_reset();
    xc_fail_left = xc_max_fail;
    for (int i = 0; i < XC_FAIL_KINDS; i++)
        xc_fail_calls[i] = 0;
    return xc_block();
}

long *__xc_env_reset(void) {
    xc_ensure_init();
    xc_fs_reset();
    xc_fd_reset();
    xc_sys_reset();
    xc_fail_left = xc_max_fail;
    for (int i = 0; i < XC_FAIL_KINDS; i++)
        xc_fail_calls[i] = 0;
    return xc_block();
}

void xc_ensure_init(void) {
    if (!xc_ready) {
        static char name[] = "program";
        char *argv[2] = {name, 0};
        __xc_env_init(1, argv);
    }
}

void xc_fail_tick(int kind) { xc_fail_calls[kind]++; }

int xc_fail_now(int kind) {
    if (!xc_fail_left)
        return 0;
    /* As KLEE: the call fails when its number equals the symbolic counter (one fork). */
    if (*xc_fail_obj[kind] == (int)xc_fail_calls[kind]) {
        xc_fail_left--;
        return 1;
    }
    return 0;
}
