/* The system-call model's file system: the list of file and directory nodes (symbolic files,
 * host files read on first use, files and directories the program creates), path resolution
 * (KLEE's rule for the symbolic files "A", "B", …, then "/" and "." (the root), devices,
 * nodes, the host), and the small string and concretization helpers the other model files
 * share. */
#include <xcheck/posix.h>

/* ---- helpers ---------------------------------------------------------------------------- */

size_t xc_strlen(const char *s) {
    size_t n = 0;
    while (s[n])
        n++;
    return n;
}

int xc_streq(const char *a, const char *b) {
    while (*a == *b) {
        if (!*a)
            return 1;
        a++;
        b++;
    }
    return 0;
}

/* Written on one side of each concretizing comparison: a volatile store cannot be executed
 * speculatively, so the compiler keeps the comparison a branch (on which the engine forks)
 * instead of turning it into a select (which would leave the value symbolic). */
static volatile unsigned char xc_fork_sink;

/* Binary search over [lo, hi) for v (lo <= v < hi holds): every path ends with its own
 * concrete value. */
static unsigned long xc_search(unsigned long v, unsigned long lo, unsigned long hi) {
    while (hi - lo > 1) {
        unsigned long mid = lo + (hi - lo) / 2;
        if (v < mid) {
            hi = mid;
            xc_fork_sink = 1;
        } else {
            lo = mid;
        }
    }
    return lo;
}

unsigned long xc_conc_below(unsigned long v, unsigned long bound) {
    if (!klee_is_symbolic(v))
        return v;
    return xc_search(v, 0, bound);
}

unsigned long xc_conc(unsigned long v) {
    if (!klee_is_symbolic(v))
        return v;
    unsigned long lo = 0, hi = 16;
    while (v >= hi) {
        xc_fork_sink = 1;
        lo = hi;
        if (hi >= (1UL << 60)) {
            if (v == ~0UL)
                return ~0UL;
            return xc_search(v, lo, ~0UL);
        }
        hi <<= 4;
    }
    return xc_search(v, lo, hi);
}

/* ---- nodes ------------------------------------------------------------------------------ */

/* The working directory, which is also "/" (getcwd answers "/"). */
struct xc_file xc_root = {
    .name = ".", .init_name = ".", .mode = XC_S_IFDIR | 0755, .init_mode = XC_S_IFDIR | 0755,
    .exists = 1, .init_exists = 1, .ino = 2,
};

static struct xc_file *xc_nodes;         /* every node but the root, oldest first */
static struct xc_file **xc_nodes_tail = &xc_nodes;
static struct xc_file *xc_syms;          /* the --sym-files nodes ("A", "B", …) */
static unsigned xc_nsyms;
/* Inode numbers: the symbolic files and stdin get small fixed ones (env.c), host files one
 * derived from their name, created files a counter that reset rewinds, so that A and B see the
 * same numbers whatever order the host files were first looked up in. */
static uint64_t xc_ino_next = 1000;

uint64_t xc_fs_next_ino(void) { return xc_ino_next++; }

static uint64_t xc_name_ino(const char *s) {
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return 0x100000 + (h & 0xffffff);
}

void xc_fs_add(struct xc_file *f) {
    f->next = 0;
    *xc_nodes_tail = f;
    xc_nodes_tail = &f->next;
}

void xc_fs_set_sym_files(struct xc_file *files, unsigned n) {
    xc_syms = files;
    xc_nsyms = n;
    for (unsigned i = 0; i < n; i++)
        xc_fs_add(&files[i]);
}

/* Makes f's contents its own buffer of at least `need` bytes (copying the pristine bytes on
 * first modification). Returns 0, -EFBIG past 1 GiB, or -ENOMEM. */
int xc_fs_own(struct xc_file *f, size_t need) {
    if (need < f->size)
        need = f->size;
    if (f->cap && need <= f->cap)
        return 0;
    if (need > (1UL << 30))
        return -XC_EFBIG;
    size_t cap = f->cap ? f->cap * 2 : 64;
    while (cap < need)
        cap *= 2;
    unsigned char *d;
    if (f->cap) {
        d = realloc(f->data, cap);
    } else {
        d = malloc(cap);
        if (d && f->size)
            memcpy(d, f->data, f->size);
    }
    if (!d)
        return -XC_ENOMEM;
    f->data = d;
    f->cap = cap;
    return 0;
}

void xc_fs_truncate(struct xc_file *f, size_t len) {
    if (len == f->size)
        return;
    if (len < f->size && !f->cap) {
        /* Shrinking the pristine buffer: keep sharing it, only the size changes. */
        f->size = len;
        return;
    }
    if (xc_fs_own(f, len))
        return;
    if (len > f->size)
        memset(f->data + f->size, 0, len - f->size);
    f->size = len;
}

static void xc_restore(struct xc_file *f) {
    if (f->cap)
        free(f->data);
    f->data = f->init_data;
    f->size = f->init_size;
    f->cap = 0;
    if (f->name != f->init_name)
        free((void *)f->name);
    f->name = f->init_name;
    f->mode = f->init_mode;
    f->exists = f->init_exists;
}

void xc_fs_reset(void) {
    xc_restore(&xc_root);
    for (struct xc_file *f = xc_nodes; f; f = f->next)
        xc_restore(f);
    xc_ino_next = 1000;
}

/* Whether the run changed node f: created or removed it, renamed it, changed its mode, size or
 * contents (a contents buffer of its own means it was written). */
static int xc_changed(const struct xc_file *f) {
    if (!f->exists && !f->init_exists)
        return 0;
    return f->exists != f->init_exists || f->cap || f->name != f->init_name ||
           f->mode != f->init_mode || f->size != f->init_size;
}

static int xc_name_less(const char *a, const char *b) {
    while (*a && *a == *b) {
        a++;
        b++;
    }
    return (unsigned char)*a < (unsigned char)*b;
}

/* One record of stream 3: the name and its NUL, 'F' (a file), 'D' (a directory) or '-' (gone),
 * the permission bits (4 bytes, little-endian), the size (8 bytes) and a file's contents. */
static void xc_publish_one(const char *name, const struct xc_file *f) {
    int gone = !f || !f->exists;
    int dir = !gone && (f->mode & XC_S_IFMT) == XC_S_IFDIR;
    __xc_output(3, name, xc_strlen(name) + 1);
    unsigned char head[13];
    head[0] = gone ? '-' : dir ? 'D' : 'F';
    uint32_t mode = gone ? 0 : f->mode & 07777;
    uint64_t size = gone || dir ? 0 : f->size;
    for (int i = 0; i < 4; i++)
        head[1 + i] = (unsigned char)(mode >> (8 * i));
    for (int i = 0; i < 8; i++)
        head[5 + i] = (unsigned char)(size >> (8 * i));
    __xc_output(3, head, sizeof head);
    if (size)
        __xc_output(3, f->data, size);
}

/* Publishes what the running program did to the file system, as stream 3 of its outputs: a
 * record per changed node, in name order (so that the order files were created or first
 * looked up in does not count), and the old name of a renamed file that existed as gone. */
void xc_fs_publish(void) {
    size_t n = 0;
    for (struct xc_file *f = xc_nodes; f; f = f->next)
        n += (size_t)xc_changed(f) * (f->name != f->init_name && f->init_exists ? 2 : 1);
    if (!n)
        return;
    const char **names = malloc(n * sizeof *names);
    struct xc_file **nodes = malloc(n * sizeof *nodes);
    size_t k = 0;
    for (struct xc_file *f = xc_nodes; f; f = f->next) {
        if (!xc_changed(f))
            continue;
        names[k] = f->name;
        nodes[k++] = f;
        if (f->name != f->init_name && f->init_exists) {
            names[k] = f->init_name;
            nodes[k++] = 0;
        }
    }
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && xc_name_less(names[j], names[j - 1]); j--) {
            const char *tn = names[j];
            names[j] = names[j - 1];
            names[j - 1] = tn;
            struct xc_file *tf = nodes[j];
            nodes[j] = nodes[j - 1];
            nodes[j - 1] = tf;
        }
    for (size_t i = 0; i < n; i++) {
        /* A name removed and made again (unlink, then create) is one record: the new file. */
        int gone = !nodes[i] || !nodes[i]->exists;
        if (gone && ((i > 0 && xc_streq(names[i - 1], names[i])) ||
                     (i + 1 < n && xc_streq(names[i + 1], names[i]))))
            continue;
        xc_publish_one(names[i], nodes[i]);
    }
    free(names);
    free(nodes);
}

void xc_fs_stat(const struct xc_file *f, struct xc_stat *st) {
    int dir = (f->mode & XC_S_IFMT) == XC_S_IFDIR;
    if (f->stat) {
        /* A symbolic file's stat object (pinned to the values below when it was made); what
         * the run can change (mode, size) is taken from the node. */
        memcpy(st, f->stat, sizeof *st);
    } else {
        memset(st, 0, sizeof *st);
        st->st_dev = 0x803;
        st->st_ino = f->ino;
        st->st_blksize = 4096;
        st->st_atime_sec = st->st_mtime_sec = st->st_ctime_sec = XC_EPOCH;
    }
    st->st_nlink = dir ? 2 : 1;
    st->st_mode = f->mode;
    st->st_size = dir ? 4096 : (int64_t)f->size;
    st->st_blocks = (st->st_size + 4095) / 4096 * 8;
}

/* ---- path resolution -------------------------------------------------------------------- */

/* A concrete path of length len as the model names files: "." components and repeated or
 * trailing slashes dropped ("./a//b/." is "a/b"); what is left of nothing is "/" or ".".
 * *dir is set when the path ends in "/" or "/.": it must name a directory. */
static char *xc_norm(const char *p, size_t len, int *dir) {
    char *out = malloc(len + 2);
    size_t o = 0, i = 0;
    size_t abs = p[0] == '/';
    if (abs)
        out[o++] = '/';
    *dir = 0;
    while (i < len) {
        while (i < len && p[i] == '/')
            i++;
        size_t start = i;
        while (i < len && p[i] != '/')
            i++;
        size_t n = i - start;
        if (n == 0)
            break;
        *dir = i < len;
        if (n == 1 && p[start] == '.') {
            *dir = 1;
            continue;
        }
        if (o > abs)
            out[o++] = '/';
        memcpy(out + o, p + start, n);
        o += n;
    }
    if (o == 0)
        out[o++] = '.';
    out[o] = 0;
    return out;
}

char *xc_norm_dup(const char *path) {
    int dir;
    return xc_norm(path, xc_strlen(path), &dir);
}

static struct xc_file *xc_new_node(const char *path, uint32_t mode, uint64_t ino) {
    struct xc_file *f = calloc(1, sizeof *f);
    f->name = f->init_name = xc_norm_dup(path);
    f->mode = f->init_mode = mode;
    f->ino = ino;
    xc_fs_add(f);
    return f;
}

static int xc_device(const char *p) {
    static const struct { const char *name; int dev; } devs[] = {
        {"/dev/null", XC_DEV_NULL},     {"/dev/zero", XC_DEV_ZERO},
        {"/dev/random", XC_DEV_RANDOM}, {"/dev/urandom", XC_DEV_URANDOM},
        {"/dev/tty", XC_DEV_TTY},       {"/dev/stdin", XC_DEV_FD0},
        {"/dev/stdout", XC_DEV_FD1},    {"/dev/stderr", XC_DEV_FD2},
        {"/dev/fd/0", XC_DEV_FD0},      {"/dev/fd/1", XC_DEV_FD1},
        {"/dev/fd/2", XC_DEV_FD2},
    };
    if (p[0] != '/' || p[1] != 'd' || p[2] != 'e' || p[3] != 'v' || p[4] != '/')
        return XC_DEV_NONE;
    for (unsigned i = 0; i < sizeof devs / sizeof devs[0]; i++)
        if (xc_streq(p, devs[i].name))
            return devs[i].dev;
    return XC_DEV_NONE;
}

/* Resolves a concrete, normalized path. */
static long xc_resolve_concrete(const char *path, struct xc_path *r) {
    int dev = xc_device(path);
    if (dev == XC_DEV_TTY)
        return -XC_ENXIO;
    if (dev) {
        r->dev = dev;
        return 0;
    }
    if (xc_streq(path, "/") || xc_streq(path, ".")) {
        r->file = &xc_root;
        return 0;
    }

    /* Known nodes: an existing one with that name wins over absent ones. */
    struct xc_file *absent = 0;
    for (struct xc_file *f = xc_nodes; f; f = f->next) {
        if (!xc_streq(f->name, path))
            continue;
        if (f->exists) {
            r->file = f;
            return 0;
        }
        if (!absent)
            absent = f;
    }
    if (absent)
        return -XC_ENOENT;

    /* First use of this name: ask the host, and remember the answer (absent included). */
    char *data = 0;
    long size = __xc_host_file(path, &data);
    struct xc_file *f;
    if (size >= 0) {
        f = xc_new_node(path, XC_S_IFREG | 0644, xc_name_ino(path));
        f->data = f->init_data = (unsigned char *)data;
        f->size = f->init_size = (size_t)size;
        f->exists = f->init_exists = 1;
    } else if (size == -XC_EISDIR) {
        f = xc_new_node(path, XC_S_IFDIR | 0755, xc_name_ino(path));
        f->exists = f->init_exists = 1;
    } else if (size == -XC_ENOENT) {
        xc_new_node(path, XC_S_IFREG | 0644, 0);
        return -XC_ENOENT;
    } else {
        return size;
    }
    r->file = f;
    return 0;
}

long xc_resolve(const char *path, struct xc_path *r) {
    r->file = 0;
    r->dev = XC_DEV_NONE;
    r->concrete = 0;
    if (!path)
        return -XC_EFAULT;

    /* KLEE's rule: a one-character path 'A'+i names symbolic file i. The comparisons fork
     * when the path is symbolic (one path per file, and one where none matches). */
    char c = path[0];
    if (c != 0 && path[1] == 0) {
        for (unsigned i = 0; i < xc_nsyms; i++) {
            if (c == (char)('A' + i)) {
                struct xc_file *f = &xc_syms[i];
                if (f->exists && f->name == f->init_name) {
                    r->file = f;
                    r->concrete = 1;
                    return 0;
                }
                break;
            }
        }
    }

    /* The root, which is also the working directory, by a one-character name: "/" or ".".
     * The comparisons fork on a symbolic name as the symbolic files' do, so that a
     * directory argument (`cksum /`, `split .`) is explored. */
    if ((c == '/' || c == '.') && path[1] == 0) {
        r->file = &xc_root;
        r->concrete = 1;
        return 0;
    }

    /* Any other symbolic byte before the terminator: no other file can be named. */
    size_t len = 0;
    for (;; len++) {
        if (len >= XC_PATH_MAX)
            return -XC_ENAMETOOLONG;
        if (klee_is_symbolic((uintptr_t)(unsigned char)path[len]))
            return -XC_ENOENT;
        if (path[len] == 0)
            break;
    }
    r->concrete = 1;
    if (len == 0)
        return -XC_ENOENT;

    int want_dir;
    char *norm = xc_norm(path, len, &want_dir);
    long e = xc_resolve_concrete(norm, r);
    free(norm);
    if (!e && want_dir && (r->dev || (r->file->mode & XC_S_IFMT) != XC_S_IFDIR))
        return -XC_ENOTDIR;
    return e;
}

/* Whether a new entry may be made at `path` (concrete): its directory must exist. Returns 0
 * or -errno. */
long xc_parent_ok(const char *path) {
    char *p = xc_norm_dup(path);
    size_t slash = xc_strlen(p);
    long e = 0;
    if (xc_streq(p, "/") || xc_streq(p, ".")) {
        e = -XC_EEXIST;
    } else {
        while (slash > 0 && p[slash - 1] != '/')
            slash--;
        if (slash > 1)
            slash--;                        /* "a/b": the parent is "a"; "/b": "/" */
        if (slash > 0) {
            p[slash] = 0;
            struct xc_path r;
            e = xc_resolve(p, &r);
            if (!e && (r.dev || (r.file->mode & XC_S_IFMT) != XC_S_IFDIR))
                e = -XC_ENOTDIR;
        }
    }
    free(p);
    return e;
}

/* Whether directory d may not be removed: a host directory's entries are unknown (taken as
 * present); a directory the program made is busy while a node below it exists. */
int xc_fs_dir_busy(const struct xc_file *d) {
    if (d->init_exists)
        return 1;
    size_t n = xc_strlen(d->name);
    for (const struct xc_file *f = xc_nodes; f; f = f->next) {
        if (!f->exists || f == d)
            continue;
        size_t i = 0;
        while (i < n && f->name[i] == d->name[i])
            i++;
        if (i == n && f->name[n] == '/')
            return 1;
    }
    return 0;
}

/* ---- directory listing ------------------------------------------------------------------ */

int xc_fs_dir_known(const struct xc_file *d) { return d == &xc_root || !d->init_exists; }

static int xc_is_sym(const struct xc_file *f) { return f >= xc_syms && f < xc_syms + xc_nsyms; }

/* The entry name of node f in directory d (a pointer into f's name), whether or not f
 * exists, or NULL when f is not directly in d. The root is both "/" and ".": "x" and "/x"
 * are in it. */
static const char *xc_entry_name(const struct xc_file *d, const struct xc_file *f) {
    const char *n = f->name, *rest;
    if (f == d || !n[0])
        return 0;   /* stdin's node has an empty name */
    if (d == &xc_root) {
        rest = n[0] == '/' ? n + 1 : n;
    } else {
        size_t i = 0;
        while (d->name[i] && n[i] == d->name[i])
            i++;
        if (d->name[i] || n[i] != '/')
            return 0;
        rest = n + i + 1;
    }
    if (!rest[0])
        return 0;
    for (const char *c = rest; *c; c++)
        if (*c == '/')
            return 0;
    return rest;
}

/* Whether node f is listed in d: an existing entry of d that is a symbolic file or that the
 * program made (created, or renamed to that name). Files only found on the host by name are
 * not listed: whether a node exists for one depends on which program looked it up first. */
static const char *xc_listed(const struct xc_file *d, const struct xc_file *f) {
    if (!f->exists || !(xc_is_sym(f) || !f->init_exists || f->name != f->init_name))
        return 0;
    return xc_entry_name(d, f);
}

/* The inode number of d's parent (the root's parent is itself). */
static uint64_t xc_parent_ino(const struct xc_file *d) {
    if (d == &xc_root)
        return xc_root.ino;
    for (const struct xc_file *f = xc_nodes; f; f = f->next)
        if (f->exists && (f->mode & XC_S_IFMT) == XC_S_IFDIR && xc_entry_name(f, d))
            return f->ino;
    return xc_root.ino;
}

/* The length of a record naming `name`: its head, the name and its NUL (and the old
 * layout's d_type byte), rounded up to 8. */
static size_t xc_dirent_len(const char *name, int is64) {
    return ((is64 ? 19 : 18) + xc_strlen(name) + 1 + (is64 ? 0 : 1) + 7) & ~(size_t)7;
}

/* Writes one record at buf: linux_dirent64 (d_ino, d_off, d_reclen, d_type, d_name) or the
 * old linux_dirent (d_ino, d_off, d_reclen, d_name, padding, d_type in the last byte).
 * Returns its length. */
static size_t xc_dirent(unsigned char *buf, uint64_t ino, long off, const char *name,
                        unsigned char type, int is64) {
    size_t nlen = xc_strlen(name);
    size_t head = is64 ? 19 : 18;
    size_t reclen = xc_dirent_len(name, is64);
    uint16_t rl = (uint16_t)reclen;
    memset(buf, 0, reclen);
    memcpy(buf, &ino, 8);
    memcpy(buf + 8, &off, 8);
    memcpy(buf + 16, &rl, 2);
    memcpy(buf + head, name, nlen);
    buf[is64 ? 18 : reclen - 1] = type;
    return reclen;
}

long xc_fs_getdents(struct xc_file *d, long *off, struct xc_file **last, unsigned char *buf,
                    unsigned long count, int is64) {
    if (!buf)
        return -XC_EFAULT;
    count = xc_conc(count);

    /* The listed entries in name order (names unique: "x" and "/x" are one entry). */
    size_t n = 0;
    for (struct xc_file *f = xc_nodes; f; f = f->next)
        n += xc_listed(d, f) != 0;
    struct xc_file **kids = malloc((n ? n : 1) * sizeof *kids);
    const char **names = malloc((n ? n : 1) * sizeof *names);
    size_t k = 0;
    for (struct xc_file *f = xc_nodes; f; f = f->next) {
        const char *e = xc_listed(d, f);
        if (!e)
            continue;
        size_t j = k++;
        for (; j > 0 && xc_name_less(e, names[j - 1]); j--) {
            names[j] = names[j - 1];
            kids[j] = kids[j - 1];
        }
        names[j] = e;
        kids[j] = f;
    }
    k = 0;
    for (size_t i = 0; i < n; i++)
        if (k == 0 || !xc_streq(names[i], names[k - 1])) {
            names[k] = names[i];
            kids[k++] = kids[i];
        }
    n = k;

    /* Where to go on from: after the entry listed last when it is still known by a name in
     * d (so that removing entries already listed skips nothing), else by position. */
    long pos = *off;
    size_t i;
    const char *after = pos >= 2 && *last ? xc_entry_name(d, *last) : 0;
    if (after) {
        i = 0;
        while (i < n && !xc_name_less(after, names[i]))
            i++;
        i += 2;
    } else {
        i = pos < 0 ? 0 : (size_t)pos;
    }

    long done = 0;
    for (; i < n + 2; i++) {
        const char *name = i == 0 ? "." : i == 1 ? ".." : names[i - 2];
        size_t len = xc_dirent_len(name, is64);
        if ((unsigned long)done + len > count) {
            if (done == 0)
                done = -XC_EINVAL;
            break;
        }
        uint64_t ino = i == 0 ? d->ino : i == 1 ? xc_parent_ino(d) : kids[i - 2]->ino;
        uint32_t mode = i < 2 ? XC_S_IFDIR : kids[i - 2]->mode;
        pos++;
        done += (long)xc_dirent(buf + done, ino, pos, name,
                                (unsigned char)((mode & XC_S_IFMT) >> 12), is64);
        *off = pos;
        *last = i < 2 ? 0 : kids[i - 2];
    }
    free(kids);
    free(names);
    return done;
}

struct xc_file *xc_fs_create(const char *path, uint32_t mode) {
    struct xc_file *f = xc_new_node(path, mode, xc_fs_next_ino());
    f->exists = 1;
    return f;
}
