/* The system-call model's descriptor table and the file system calls: read/write and their
 * vector and positioned forms, copy_file_range and sendfile (from a regular file),
 * open/openat/creat, close, lseek, the stat family, access, ioctl, fcntl, dup/dup2/dup3,
 * pipe/pipe2, getdents64/getdents, ftruncate/truncate, unlink/rmdir/mkdir/rename, getcwd
 * and friends, inotify (watches, no events), poll/select (files and devices are ready at once, pipes as their contents
 * say) and statfs. Descriptors point to open file descriptions (shared by dup), which point
 * to file nodes (fs.c), output pipes (stdout/stderr, recorded with __xc_output), the
 * program's own pipes (pipe.c) or devices. */
#include <xcheck/posix.h>

/* Watches one inotify instance holds at most. */
#define XC_NWATCH 16

struct xc_ofd {
    int refs;
    int kind;               /* XC_K_* */
    int flags;              /* access mode and status flags, as F_GETFL reports them */
    int stream;             /* XC_K_PIPE: 1 or 2 */
    long off;               /* may be symbolic after an lseek by a symbolic amount; for a
                             * directory, the entries listed so far */
    struct xc_file *file;   /* XC_K_FILE, XC_K_DIR */
    struct xc_file *dir_last; /* XC_K_DIR: the entry listed last (NULL for "." and "..") */
    struct xc_pipe *pipe;   /* XC_K_FIFO */
    struct xc_file *watch[XC_NWATCH]; /* XC_K_INOTIFY: watch descriptor k + 1 watches watch[k] */
    int watches;
};

static struct xc_ofd xc_ofds[XC_NFD];
static struct xc_ofd *xc_fds[XC_NFD];
static unsigned char xc_cloexec[XC_NFD];
static struct xc_file *xc_stdin_file;
static uint32_t xc_umask = 022;

#define XC_STATUS_FLAGS (XC_O_APPEND | XC_O_NONBLOCK | XC_O_ASYNC | XC_O_DIRECT | XC_O_NOATIME)

static int xc_readable(const struct xc_ofd *o) {
    int acc = o->flags & XC_O_ACCMODE;
    return acc == XC_O_RDONLY || acc == XC_O_RDWR;
}

static int xc_writable(const struct xc_ofd *o) {
    int acc = o->flags & XC_O_ACCMODE;
    return acc == XC_O_WRONLY || acc == XC_O_RDWR;
}

static struct xc_ofd *xc_ofd_new(int kind, int flags) {
    for (int i = 0; i < XC_NFD; i++) {
        struct xc_ofd *o = &xc_ofds[i];
        if (o->refs == 0) {
            o->refs = 1;
            o->kind = kind;
            o->flags = flags;
            o->stream = 0;
            o->off = 0;
            o->file = 0;
            o->dir_last = 0;
            o->pipe = 0;
            o->watches = 0;
            return o;
        }
    }
    return 0; /* cannot happen: there are as many descriptions as descriptors */
}

static void xc_ofd_put(struct xc_ofd *o) {
    if (--o->refs == 0 && o->kind == XC_K_FIFO)
        xc_pipe_drop(o->pipe, xc_readable(o), xc_writable(o));
}

/* The descriptor number fd as a concrete index, or -1 when it is not open. */
static int xc_fdno(long fd) {
    if ((unsigned long)fd >= XC_NFD)
        return -1;
    int i = (int)xc_conc_below((unsigned long)fd, XC_NFD);
    return xc_fds[i] ? i : -1;
}

static struct xc_ofd *xc_get(long fd) {
    int i = xc_fdno(fd);
    return i < 0 ? 0 : xc_fds[i];
}

static int xc_lowest_free(int from) {
    for (int i = from; i < XC_NFD; i++)
        if (!xc_fds[i])
            return i;
    return -1;
}

static void xc_install(int fd, struct xc_ofd *o, int cloexec) {
    xc_fds[fd] = o;
    xc_cloexec[fd] = (unsigned char)(cloexec != 0);
}

static void xc_fd_release(int fd) {
    xc_ofd_put(xc_fds[fd]);
    xc_fds[fd] = 0;
    xc_cloexec[fd] = 0;
}

void xc_fd_setup(struct xc_file *stdin_file) {
    xc_stdin_file = stdin_file;
    xc_fd_reset();
}

void xc_fd_reset(void) {
    for (int i = 0; i < XC_NFD; i++) {
        xc_ofds[i].refs = 0;
        xc_fds[i] = 0;
        xc_cloexec[i] = 0;
    }
    xc_umask = 022;
    xc_pipe_reset();
    struct xc_ofd *in = xc_ofd_new(XC_K_FILE, XC_O_RDONLY | XC_O_LARGEFILE);
    in->file = xc_stdin_file;
    xc_install(0, in, 0);
    for (int s = 1; s <= 2; s++) {
        struct xc_ofd *out = xc_ofd_new(XC_K_PIPE, XC_O_WRONLY);
        out->stream = s;
        xc_install(s, out, 0);
    }
}

/* ---- reading and writing ---------------------------------------------------------------- */

/* Reads up to count bytes of f at offset off into buf; returns the number read. */
static size_t xc_file_pread(struct xc_file *f, void *buf, size_t count, unsigned long off) {
    if (off >= f->size)
        return 0;
    off = xc_conc_below(off, f->size);
    size_t avail = f->size - off;
    size_t n = count < avail ? count : avail;
    n = xc_conc_below(n, avail + 1);
    memcpy(buf, f->data + off, n);
    return n;
}

/* Writes count bytes of buf to f at offset off, growing f (a hole reads as zeros). */
static long xc_file_pwrite(struct xc_file *f, const void *buf, size_t count, unsigned long off) {
    if (off <= f->size)
        off = xc_conc_below(off, f->size + 1);
    else
        off = xc_conc(off);
    count = xc_conc(count);
    if (count == 0)
        return 0;
    if (off > (1UL << 30) || count > (1UL << 30))
        return -XC_EFBIG;
    size_t end = off + count;
    int e = xc_fs_own(f, end);
    if (e)
        return e;
    if (off > f->size)
        memset(f->data + f->size, 0, off - f->size);
    memcpy(f->data + off, buf, count);
    if (end > f->size)
        f->size = end;
    return (long)count;
}

/* A read of inotify events, or a wait for them: the model keeps watches but makes no
 * events, and what a program would see (the changes it made itself, or a wait forever)
 * is not modelled. */
static void xc_inotify_events(void) {
    klee_report_error(__FILE__, __LINE__,
                      "inotify events are not modelled (reading them or waiting for them)",
                      "model.err");
}

/* One transfer from an open description; pos < 0 means "at the description's offset".
 * first: nothing was read yet by this call (only then does an empty pipe wait). */
static long xc_do_read(struct xc_ofd *o, void *buf, size_t count, long pos, int first) {
    switch (o->kind) {
    case XC_K_FILE: {
        unsigned long off = pos < 0 ? (unsigned long)o->off : (unsigned long)pos;
        size_t n = xc_file_pread(o->file, buf, count, off);
        if (pos < 0)
            o->off = (long)(off + n);
        return (long)n;
    }
    case XC_K_DIR:
        return -XC_EISDIR;
    case XC_K_FIFO:
        return xc_pipe_read(o->pipe, buf, count, first && !(o->flags & XC_O_NONBLOCK));
    case XC_K_INOTIFY:
        xc_inotify_events();
        return -XC_EAGAIN;
    case XC_K_NULL:
        return 0;
    case XC_K_ZERO:
        count = xc_conc(count);
        memset(buf, 0, count);
        return (long)count;
    case XC_K_RANDOM:
        count = xc_conc(count);
        xc_random_fill(buf, count);
        return (long)count;
    default:
        return -XC_EBADF;
    }
}

static long xc_do_write(struct xc_ofd *o, const void *buf, size_t count, long pos) {
    switch (o->kind) {
    case XC_K_FILE: {
        unsigned long off;
        if (pos >= 0)
            off = (unsigned long)pos;
        else if (o->flags & XC_O_APPEND)
            off = o->file->size;
        else
            off = (unsigned long)o->off;
        long r = xc_file_pwrite(o->file, buf, count, off);
        if (r >= 0 && pos < 0)
            o->off = (long)(off + (unsigned long)r);
        return r;
    }
    case XC_K_PIPE:
        count = xc_conc(count);
        if (count)
            __xc_output(o->stream, buf, count);
        return (long)count;
    case XC_K_FIFO:
        return xc_pipe_write(o->pipe, buf, count, !(o->flags & XC_O_NONBLOCK));
    case XC_K_NULL:
    case XC_K_ZERO:
    case XC_K_RANDOM:
        return (long)xc_conc(count);
    default:
        return -XC_EBADF;
    }
}

static long xc_read_common(long fd, const struct xc_iovec *iov, long iovcnt, long pos) {
    xc_fail_tick(XC_FAIL_READ);
    struct xc_ofd *o = xc_get(fd);
    if (!o)
        return -XC_EBADF;
    if (!xc_readable(o))
        return -XC_EBADF;
    if (pos >= 0 && o->kind != XC_K_FILE && o->kind != XC_K_DIR)
        return -XC_ESPIPE;
    size_t total = 0;
    for (long i = 0; i < iovcnt; i++)
        total += iov[i].len;
    if (total == 0)
        return 0;
    if (xc_fail_now(XC_FAIL_READ))
        return -XC_EIO;
    long done = 0;
    for (long i = 0; i < iovcnt; i++) {
        size_t len = iov[i].len;
        if (len == 0)
            continue;
        long r = xc_do_read(o, iov[i].base, len, pos < 0 ? pos : pos + done, done == 0);
        if (r < 0)
            return done ? done : r;
        done += r;
        if ((size_t)r < len)
            break;
    }
    return done;
}

static long xc_write_common(long fd, const struct xc_iovec *iov, long iovcnt, long pos) {
    xc_fail_tick(XC_FAIL_WRITE);
    struct xc_ofd *o = xc_get(fd);
    if (!o)
        return -XC_EBADF;
    if (!xc_writable(o))
        return -XC_EBADF;
    if (pos >= 0 && o->kind != XC_K_FILE)
        return -XC_ESPIPE;
    if (xc_fail_now(XC_FAIL_WRITE))
        return -XC_EIO;
    long done = 0;
    for (long i = 0; i < iovcnt; i++) {
        size_t len = iov[i].len;
        if (len == 0)
            continue;
        long r = xc_do_write(o, iov[i].base, len, pos < 0 ? pos : pos + done);
        if (r < 0)
            return done ? done : r;
        done += r;
    }
    return done;
}

/* One transfer of copy_file_range or sendfile from in, a regular file, to out: at most len
 * bytes from *in_pos (advanced) or in's offset, written at *out_pos (advanced) or out's
 * offset. What the write did not take is left unread. Returns the bytes copied, 0 at the
 * end of in. */
static long xc_transfer(struct xc_ofd *in, long *in_pos, struct xc_ofd *out, long *out_pos,
                        size_t len) {
    unsigned long start = in_pos ? (unsigned long)*in_pos : (unsigned long)in->off;
    if (start >= in->file->size || len == 0)
        return 0;
    size_t avail = in->file->size - xc_conc_below(start, in->file->size);
    if (len > avail)
        len = avail;
    len = xc_conc_below(len, avail + 1);
    unsigned char *buf = malloc(len);
    long r = xc_do_read(in, buf, len, (long)start, 1);
    long w = r > 0 ? xc_do_write(out, buf, (size_t)r, out_pos ? *out_pos : -1) : r;
    free(buf);
    if (w < 0)
        return w;
    if (in_pos)
        *in_pos += w;
    else
        in->off = (long)start + w;
    if (out_pos)
        *out_pos += w;
    return w;
}

/* copy_file_range(2) between two regular files of the model. */
static long xc_copy_file_range(long fd_in, long *off_in, long fd_out, long *off_out,
                               unsigned long len, long flags) {
    struct xc_ofd *in = xc_get(fd_in), *out = xc_get(fd_out);
    if (!in || !out || !xc_readable(in) || !xc_writable(out) || (out->flags & XC_O_APPEND))
        return -XC_EBADF;
    if (flags)
        return -XC_EINVAL;
    if (in->kind == XC_K_DIR || out->kind == XC_K_DIR)
        return -XC_EISDIR;
    if (in->kind != XC_K_FILE || out->kind != XC_K_FILE)
        return -XC_EINVAL;
    if ((off_in && *off_in < 0) || (off_out && *off_out < 0))
        return -XC_EINVAL;
    long pi = off_in ? *off_in : in->off, po = off_out ? *off_out : out->off;
    if (in->file == out->file && len && pi < po + (long)len && po < pi + (long)len)
        return -XC_EINVAL;
    return xc_transfer(in, off_in, out, off_out, len);
}

/* sendfile(2): from a regular file to any descriptor of the model. */
static long xc_sendfile(long fd_out, long fd_in, long *offset, unsigned long count) {
    struct xc_ofd *in = xc_get(fd_in), *out = xc_get(fd_out);
    if (!in || !out || !xc_readable(in) || !xc_writable(out))
        return -XC_EBADF;
    if (in->kind != XC_K_FILE || (out->flags & XC_O_APPEND))
        return -XC_EINVAL;
    if (offset && *offset < 0)
        return -XC_EINVAL;
    return xc_transfer(in, offset, out, 0, count);
}

static long xc_check_iov(long iovcnt) {
    if (iovcnt < 0 || iovcnt > 1024)
        return -XC_EINVAL;
    return xc_conc_below((unsigned long)iovcnt, 1025);
}

/* ---- opening and closing ---------------------------------------------------------------- */

/* Opens what fd n (0, 1, 2) refers to anew, like Linux's /dev/std{in,out,err}. */
static struct xc_ofd *xc_reopen(int n, int flags, long *err) {
    struct xc_ofd *cur = xc_fds[n];
    if (!cur) {
        *err = -XC_ENOENT;
        return 0;
    }
    struct xc_ofd *o = xc_ofd_new(cur->kind, flags);
    o->stream = cur->stream;
    o->file = cur->file;
    if (o->kind == XC_K_PIPE)
        o->flags = cur->flags;
    if (o->kind == XC_K_FIFO) {
        /* Linux opens the pipe anew: one more reader or writer, as the flags ask. */
        o->pipe = cur->pipe;
        xc_pipe_hold(o->pipe, xc_readable(o), xc_writable(o));
    }
    return o;
}

static long xc_open(const char *path, long flags, long mode) {
    int acc = (int)(flags & XC_O_ACCMODE);
    int fd = xc_lowest_free(0);
    if (fd < 0)
        return -XC_EMFILE;
    struct xc_path r;
    long e = xc_resolve(path, &r);
    int keep = (int)(flags & (XC_O_ACCMODE | XC_STATUS_FLAGS)) | XC_O_LARGEFILE;
    struct xc_ofd *o = 0;
    if (!e && (flags & XC_O_CREAT) && (flags & XC_O_EXCL))
        return -XC_EEXIST;
    if (!e && r.dev) {
        switch (r.dev) {
        case XC_DEV_NULL:
            o = xc_ofd_new(XC_K_NULL, keep);
            break;
        case XC_DEV_ZERO:
            o = xc_ofd_new(XC_K_ZERO, keep);
            break;
        case XC_DEV_RANDOM:
        case XC_DEV_URANDOM:
            o = xc_ofd_new(XC_K_RANDOM, keep);
            break;
        default:
            o = xc_reopen(r.dev - XC_DEV_FD0, keep, &e);
            if (!o)
                return e;
            break;
        }
        if ((flags & XC_O_DIRECTORY) && o->kind != XC_K_DIR) {
            xc_ofd_put(o);
            return -XC_ENOTDIR;
        }
        if ((flags & XC_O_TRUNC) && o->kind == XC_K_FILE)
            xc_fs_truncate(o->file, 0);
    } else if (!e) {
        struct xc_file *f = r.file;
        if ((f->mode & XC_S_IFMT) == XC_S_IFDIR) {
            if (acc != XC_O_RDONLY || (flags & XC_O_CREAT))
                return -XC_EISDIR;
            o = xc_ofd_new(XC_K_DIR, keep);
        } else {
            if (flags & XC_O_DIRECTORY)
                return -XC_ENOTDIR;
            if (flags & XC_O_TRUNC)
                xc_fs_truncate(f, 0);
            o = xc_ofd_new(XC_K_FILE, keep);
        }
        o->file = f;
    } else {
        if (e != -XC_ENOENT || !(flags & XC_O_CREAT))
            return e;
        if (!r.concrete)
            return -XC_ENOENT;  /* a symbolic name that is no symbolic file */
        if (flags & XC_O_DIRECTORY)
            return -XC_EINVAL;
        e = xc_parent_ok(path);
        if (e)
            return e;
        struct xc_file *f = xc_fs_create(path, XC_S_IFREG | ((uint32_t)mode & 07777 & ~xc_umask));
        o = xc_ofd_new(XC_K_FILE, keep);
        o->file = f;
    }
    xc_install(fd, o, (flags & XC_O_CLOEXEC) != 0);
    return fd;
}

/* The path an *at call names: path itself when absolute or relative to the working
 * directory, else dir/path (concrete names only). *owned is set when the result was
 * allocated. Returns 0 or -errno. */
static long xc_at(long dirfd, const char *path, const char **out, char **owned) {
    *out = path;
    *owned = 0;
    if ((int)dirfd == XC_AT_FDCWD || !path || path[0] == '/')
        return 0;
    struct xc_ofd *d = xc_get(dirfd);
    if (!d)
        return -XC_EBADF;
    if (d->kind != XC_K_DIR)
        return -XC_ENOTDIR;
    if (d->file == &xc_root)
        return 0;
    size_t plen = 0;
    for (;; plen++) {
        if (plen >= XC_PATH_MAX)
            return -XC_ENAMETOOLONG;
        if (klee_is_symbolic((uintptr_t)(unsigned char)path[plen]))
            return -XC_ENOENT;
        if (!path[plen])
            break;
    }
    size_t dlen = xc_strlen(d->file->name);
    char *p = malloc(dlen + 1 + plen + 1);
    memcpy(p, d->file->name, dlen);
    p[dlen] = '/';
    memcpy(p + dlen + 1, path, plen + 1);
    *out = p;
    *owned = p;
    return 0;
}

static long xc_close(long fd) {
    /* As KLEE: the call is counted even on a bad descriptor, and an injected failure
     * leaves the descriptor open. */
    xc_fail_tick(XC_FAIL_CLOSE);
    int i = xc_fdno(fd);
    if (i < 0)
        return -XC_EBADF;
    if (xc_fail_now(XC_FAIL_CLOSE))
        return -XC_EIO;
    xc_fd_release(i);
    return 0;
}

/* pipe and pipe2: a pipe's read end and write end on the two lowest free descriptors. */
static long xc_pipe2(int *fds, long flags) {
    if (flags & ~(long)(XC_O_CLOEXEC | XC_O_NONBLOCK))
        return -XC_EINVAL;  /* O_DIRECT (packet mode) is not modelled */
    if (!fds)
        return -XC_EFAULT;
    int r = xc_lowest_free(0);
    int w = r < 0 ? -1 : xc_lowest_free(r + 1);
    if (w < 0)
        return -XC_EMFILE;
    struct xc_pipe *p = xc_pipe_new();
    if (!p)
        return -XC_ENFILE;
    int nb = (int)(flags & XC_O_NONBLOCK);
    struct xc_ofd *ro = xc_ofd_new(XC_K_FIFO, XC_O_RDONLY | nb);
    ro->pipe = p;
    xc_install(r, ro, (flags & XC_O_CLOEXEC) != 0);
    struct xc_ofd *wo = xc_ofd_new(XC_K_FIFO, XC_O_WRONLY | nb);
    wo->pipe = p;
    xc_install(w, wo, (flags & XC_O_CLOEXEC) != 0);
    int v[2] = {r, w};
    memcpy(fds, v, sizeof v);
    return 0;
}

/* inotify_init1 (and inotify_init): an instance on the lowest free descriptor. */
static long xc_inotify_init1(long flags) {
    if (flags & ~(long)(XC_O_CLOEXEC | XC_O_NONBLOCK))
        return -XC_EINVAL;
    int fd = xc_lowest_free(0);
    if (fd < 0)
        return -XC_EMFILE;
    struct xc_ofd *o = xc_ofd_new(XC_K_INOTIFY, XC_O_RDONLY | (int)(flags & XC_O_NONBLOCK));
    xc_install(fd, o, (flags & XC_O_CLOEXEC) != 0);
    return fd;
}

/* inotify_add_watch: the watch descriptor of the file path names (a file watched already
 * keeps its own); the mask must name an event. */
static long xc_inotify_add_watch(long fd, const char *path, unsigned long mask) {
    struct xc_ofd *o = xc_get(fd);
    if (!o)
        return -XC_EBADF;
    if (o->kind != XC_K_INOTIFY || (mask & XC_IN_ALL_EVENTS) == 0)
        return -XC_EINVAL;
    struct xc_path r;
    long e = xc_resolve(path, &r);
    if (e)
        return e;
    if (!r.file)
        return -XC_EACCES; /* a device: not watched in the model */
    if ((mask & XC_IN_ONLYDIR) && (r.file->mode & XC_S_IFMT) != XC_S_IFDIR)
        return -XC_ENOTDIR;
    for (int k = 0; k < o->watches; k++)
        if (o->watch[k] == r.file)
            return k + 1;
    if (o->watches == XC_NWATCH)
        return -XC_ENOSPC;
    o->watch[o->watches] = r.file;
    return ++o->watches;
}

/* inotify_rm_watch: the watch descriptor is dropped (its number is not given again). */
static long xc_inotify_rm_watch(long fd, long wd) {
    struct xc_ofd *o = xc_get(fd);
    if (!o)
        return -XC_EBADF;
    if (o->kind != XC_K_INOTIFY || wd < 1 || wd > o->watches || !o->watch[wd - 1])
        return -XC_EINVAL;
    o->watch[wd - 1] = 0;
    return 0;
}

/* ---- metadata ---------------------------------------------------------------------------- */

static void xc_ofd_stat(const struct xc_ofd *o, struct xc_stat *st) {
    if (o->kind == XC_K_FILE || o->kind == XC_K_DIR) {
        xc_fs_stat(o->file, st);
        return;
    }
    memset(st, 0, sizeof *st);
    st->st_blksize = 4096;
    st->st_nlink = 1;
    st->st_atime_sec = st->st_mtime_sec = st->st_ctime_sec = XC_EPOCH;
    if (o->kind == XC_K_INOTIFY) {
        /* An anonymous inode, as Linux's. */
        st->st_dev = 0xd;
        st->st_ino = 1;
        st->st_mode = 0600;
        return;
    }
    if (o->kind == XC_K_PIPE || o->kind == XC_K_FIFO) {
        st->st_dev = 0xc;
        st->st_ino = o->kind == XC_K_PIPE ? 20 + (uint64_t)o->stream : xc_pipe_ino(o->pipe);
        st->st_mode = XC_S_IFIFO | 0600;
        return;
    }
    st->st_dev = 0x5;
    st->st_mode = XC_S_IFCHR | 0666;
    switch (o->kind) {
    case XC_K_NULL:
        st->st_ino = 4;
        st->st_rdev = 0x103;
        break;
    case XC_K_ZERO:
        st->st_ino = 5;
        st->st_rdev = 0x105;
        break;
    default:
        st->st_ino = 9;
        st->st_rdev = 0x109;
        break;
    }
}

static long xc_fstat(long fd, void *buf) {
    struct xc_ofd *o = xc_get(fd);
    if (!o)
        return -XC_EBADF;
    if (!buf)
        return -XC_EFAULT;
    struct xc_stat st;
    xc_ofd_stat(o, &st);
    memcpy(buf, &st, sizeof st);
    return 0;
}

static long xc_stat_path(const char *path, void *buf) {
    struct xc_path r;
    long e = xc_resolve(path, &r);
    if (e)
        return e;
    if (!buf)
        return -XC_EFAULT;
    struct xc_stat st;
    if (r.dev) {
        struct xc_ofd tmp = {0};
        switch (r.dev) {
        case XC_DEV_NULL:
            tmp.kind = XC_K_NULL;
            break;
        case XC_DEV_ZERO:
            tmp.kind = XC_K_ZERO;
            break;
        case XC_DEV_RANDOM:
        case XC_DEV_URANDOM:
            tmp.kind = XC_K_RANDOM;
            break;
        default: {
            struct xc_ofd *cur = xc_fds[r.dev - XC_DEV_FD0];
            if (!cur)
                return -XC_ENOENT;
            tmp = *cur;
            break;
        }
        }
        xc_ofd_stat(&tmp, &st);
    } else {
        xc_fs_stat(r.file, &st);
    }
    memcpy(buf, &st, sizeof st);
    return 0;
}

static long xc_fstatat(long dirfd, const char *path, void *buf, long flags) {
    if ((flags & XC_AT_EMPTY_PATH) && path && path[0] == 0) {
        if ((int)dirfd == XC_AT_FDCWD)
            return xc_stat_path(".", buf);
        return xc_fstat(dirfd, buf);
    }
    const char *p;
    char *owned;
    long e = xc_at(dirfd, path, &p, &owned);
    if (e)
        return e;
    e = xc_stat_path(p, buf);
    free(owned);
    return e;
}

static long xc_access(long dirfd, const char *path, long mode) {
    const char *p;
    char *owned;
    long e = xc_at(dirfd, path, &p, &owned);
    if (e)
        return e;
    struct xc_path r;
    e = xc_resolve(p, &r);
    free(owned);
    if (e)
        return e;
    if (mode & ~7L)
        return -XC_EINVAL;
    /* Everyone is root: only execution needs an x bit. */
    if ((mode & XC_X_OK) && r.file && (r.file->mode & XC_S_IFMT) == XC_S_IFREG &&
        !(r.file->mode & 0111))
        return -XC_EACCES;
    return 0;
}

static long xc_lseek(long fd, long off, long whence) {
    struct xc_ofd *o = xc_get(fd);
    if (!o)
        return -XC_EBADF;
    switch (o->kind) {
    case XC_K_PIPE:
    case XC_K_FIFO:
    case XC_K_INOTIFY:
        return -XC_ESPIPE;
    case XC_K_NULL:
    case XC_K_ZERO:
    case XC_K_RANDOM:
        return 0;
    case XC_K_DIR: {
        /* A directory's offset counts the entries listed (getdents64's d_off): SEEK_SET to
         * 0 rewinds, to a d_off goes on from there. */
        if (whence != XC_SEEK_SET && whence != XC_SEEK_CUR)
            return -XC_EINVAL;
        if (whence == XC_SEEK_CUR && off == 0)
            return o->off;
        long n = (whence == XC_SEEK_CUR ? o->off : 0) + off;
        if (n < 0)
            return -XC_EINVAL;
        o->off = (long)xc_conc((unsigned long)n);
        o->dir_last = 0;
        return o->off;
    }
    default:
        break;
    }
    long size = (long)o->file->size, base;
    switch (whence) {
    case XC_SEEK_SET:
        base = 0;
        break;
    case XC_SEEK_CUR:
        base = o->off;
        break;
    case XC_SEEK_END:
        base = size;
        break;
    case XC_SEEK_DATA:
        if (off < 0 || off >= size)
            return -XC_ENXIO;
        o->off = off;
        return off;
    case XC_SEEK_HOLE:
        if (off < 0 || off >= size)
            return -XC_ENXIO;
        o->off = size;
        return size;
    default:
        return -XC_EINVAL;
    }
    long n = base + off;
    if (n < 0)
        return -XC_EINVAL;
    o->off = n;
    return n;
}

static long xc_ioctl(long fd, unsigned long req, long arg) {
    struct xc_ofd *o = xc_get(fd);
    if (!o)
        return -XC_EBADF;
    int fdi = xc_fdno(fd);
    switch (req) {
    case XC_FIONREAD: {
        int v = 0;
        if (o->kind == XC_K_FILE) {
            long left = (long)o->file->size - o->off;
            v = left > 0 ? (int)left : 0;
        } else if (o->kind == XC_K_FIFO) {
            v = (int)xc_pipe_avail(o->pipe);
        } else if (o->kind == XC_K_DIR) {
            return -XC_ENOTTY;
        }
        memcpy((void *)arg, &v, sizeof v);
        return 0;
    }
    case XC_FIONBIO: {
        int v;
        memcpy(&v, (void *)arg, sizeof v);
        if (v)
            o->flags |= XC_O_NONBLOCK;
        else
            o->flags &= ~XC_O_NONBLOCK;
        return 0;
    }
    case XC_FIOCLEX:
        xc_cloexec[fdi] = 1;
        return 0;
    case XC_FIONCLEX:
        xc_cloexec[fdi] = 0;
        return 0;
    default:
        /* No descriptor is a terminal: TCGETS, TIOCGWINSZ and the rest fail as on a file
         * or pipe. */
        return -XC_ENOTTY;
    }
}

static long xc_dup_to(int old, int newfd, int cloexec) {
    if (old == newfd)
        return newfd;
    if (xc_fds[newfd])
        xc_fd_release(newfd);
    xc_fds[old]->refs++;
    xc_install(newfd, xc_fds[old], cloexec);
    return newfd;
}

static long xc_fcntl(long fd, long cmd, long arg) {
    int i = xc_fdno(fd);
    if (i < 0)
        return -XC_EBADF;
    struct xc_ofd *o = xc_fds[i];
    switch (cmd) {
    case XC_F_DUPFD:
    case XC_F_DUPFD_CLOEXEC: {
        if (arg < 0 || arg >= XC_NFD)
            return -XC_EINVAL;
        int n = xc_lowest_free((int)xc_conc_below((unsigned long)arg, XC_NFD));
        if (n < 0)
            return -XC_EMFILE;
        return xc_dup_to(i, n, cmd == XC_F_DUPFD_CLOEXEC);
    }
    case XC_F_GETFD:
        return xc_cloexec[i] ? XC_FD_CLOEXEC : 0;
    case XC_F_SETFD:
        xc_cloexec[i] = (arg & XC_FD_CLOEXEC) != 0;
        return 0;
    case XC_F_GETFL:
        return o->flags;
    case XC_F_SETFL:
        o->flags = (o->flags & ~XC_STATUS_FLAGS) | ((int)arg & XC_STATUS_FLAGS);
        return 0;
    case XC_F_GETLK:
    case XC_F_OFD_GETLK: {
        short t = XC_F_UNLCK;   /* struct flock starts with its short l_type */
        memcpy((void *)arg, &t, sizeof t);
        return 0;
    }
    case XC_F_SETLK:
    case XC_F_SETLKW:
    case XC_F_OFD_SETLK:
    case XC_F_OFD_SETLKW:
    case XC_F_SETOWN:
        return 0;
    case XC_F_GETOWN:
        return 0;
    case XC_F_GETPIPE_SZ:
        return o->kind == XC_K_PIPE || o->kind == XC_K_FIFO ? XC_PIPE_CAP : -XC_EBADF;
    default:
        return -XC_EINVAL;
    }
}

/* ---- changing the tree ------------------------------------------------------------------ */

static long xc_ftruncate(long fd, long len) {
    xc_fail_tick(XC_FAIL_FTRUNCATE);
    int i = xc_fdno(fd);
    if (i < 0)
        return -XC_EBADF;
    if (xc_fail_now(XC_FAIL_FTRUNCATE))
        return -XC_EIO;
    struct xc_ofd *o = xc_fds[i];
    if (o->kind != XC_K_FILE || !xc_writable(o) || len < 0)
        return -XC_EINVAL;
    unsigned long n = xc_conc((unsigned long)len);
    if (n > (1UL << 30))
        return -XC_EFBIG;
    xc_fs_truncate(o->file, n);
    return 0;
}

static long xc_truncate(const char *path, long len) {
    struct xc_path r;
    long e = xc_resolve(path, &r);
    if (e)
        return e;
    if (r.dev)
        return -XC_EINVAL;
    if ((r.file->mode & XC_S_IFMT) == XC_S_IFDIR)
        return -XC_EISDIR;
    if (len < 0)
        return -XC_EINVAL;
    unsigned long n = xc_conc((unsigned long)len);
    if (n > (1UL << 30))
        return -XC_EFBIG;
    xc_fs_truncate(r.file, n);
    return 0;
}

static long xc_unlinkat(long dirfd, const char *path, long flags) {
    const char *p;
    char *owned;
    long e = xc_at(dirfd, path, &p, &owned);
    if (e)
        return e;
    struct xc_path r;
    e = xc_resolve(p, &r);
    free(owned);
    if (e)
        return e;
    if (r.dev)
        return -XC_EPERM;
    int dir = (r.file->mode & XC_S_IFMT) == XC_S_IFDIR;
    if (flags & XC_AT_REMOVEDIR) {
        if (!dir)
            return -XC_ENOTDIR;
        if (r.file == &xc_root)
            return -XC_EBUSY;
        if (xc_fs_dir_busy(r.file))
            return -XC_ENOTEMPTY;
    } else if (dir) {
        return -XC_EISDIR;
    }
    r.file->exists = 0;
    return 0;
}

static long xc_mkdirat(long dirfd, const char *path, long mode) {
    const char *p;
    char *owned;
    long e = xc_at(dirfd, path, &p, &owned);
    if (e)
        return e;
    struct xc_path r;
    e = xc_resolve(p, &r);
    if (!e)
        e = -XC_EEXIST;
    else if (e == -XC_ENOENT && r.concrete && !(e = xc_parent_ok(p)))
        xc_fs_create(p, XC_S_IFDIR | ((uint32_t)mode & 07777 & ~xc_umask));
    free(owned);
    return e;
}

static long xc_renameat(long olddir, const char *oldpath, long newdir, const char *newpath,
                        long flags) {
    if (flags)
        return -XC_EINVAL;
    const char *op, *np;
    char *oown, *nown;
    long e = xc_at(olddir, oldpath, &op, &oown);
    if (e)
        return e;
    e = xc_at(newdir, newpath, &np, &nown);
    if (e) {
        free(oown);
        return e;
    }
    struct xc_path ro, rn;
    e = xc_resolve(op, &ro);
    if (!e && (ro.dev || ro.file == &xc_root))
        e = -XC_EBUSY;
    if (!e) {
        long en = xc_resolve(np, &rn);
        int odir = (ro.file->mode & XC_S_IFMT) == XC_S_IFDIR;
        if (!en) {
            if (rn.dev || rn.file == &xc_root)
                e = -XC_EBUSY;
            else if (rn.file == ro.file)
                e = 0;
            else if (((rn.file->mode & XC_S_IFMT) == XC_S_IFDIR) != odir)
                e = odir ? -XC_ENOTDIR : -XC_EISDIR;
            else if (odir && xc_fs_dir_busy(rn.file))
                e = -XC_ENOTEMPTY;
            else {
                rn.file->exists = 0;
                en = -XC_ENOENT;
            }
        } else if (en == -XC_ENOENT && !rn.concrete) {
            e = -XC_ENOENT;  /* a symbolic new name that is no symbolic file */
        } else if (en == -XC_ENOENT) {
            e = xc_parent_ok(np);
        } else {
            e = en;
        }
        if (!e && en == -XC_ENOENT) {
            if (ro.file->name != ro.file->init_name)
                free((void *)ro.file->name);
            char *name = xc_norm_dup(np);
            if (xc_streq(name, ro.file->init_name)) {
                free(name);
                ro.file->name = ro.file->init_name;
            } else {
                ro.file->name = name;
            }
        }
    }
    free(oown);
    free(nown);
    return e;
}

static long xc_readlinkat(long dirfd, const char *path) {
    const char *p;
    char *owned;
    long e = xc_at(dirfd, path, &p, &owned);
    if (e)
        return e;
    struct xc_path r;
    e = xc_resolve(p, &r);
    free(owned);
    return e ? e : -XC_EINVAL;  /* nothing is a symbolic link */
}

static long xc_chmod_node(struct xc_file *f, long mode) {
    f->mode = (f->mode & XC_S_IFMT) | ((uint32_t)mode & 07777);
    return 0;
}

static long xc_path_op(long dirfd, const char *path, long mode, int chmod) {
    const char *p;
    char *owned;
    long e = xc_at(dirfd, path, &p, &owned);
    if (e)
        return e;
    struct xc_path r;
    e = xc_resolve(p, &r);
    free(owned);
    if (!e && chmod && r.file)
        xc_chmod_node(r.file, mode);
    return e;
}

static long xc_getcwd(char *buf, unsigned long size) {
    xc_fail_tick(XC_FAIL_GETCWD);
    if (xc_fail_now(XC_FAIL_GETCWD))
        return -XC_ERANGE;
    if (size < 2)
        return -XC_ERANGE;
    if (!buf)
        return -XC_EFAULT;
    buf[0] = '/';
    buf[1] = 0;
    return 2;
}

/* ---- dispatch ---------------------------------------------------------------------------- */

/* ---- readiness and file-system statistics ------------------------------------------------- */

/* What poll reports ready on a description: every file, directory and device of the model
 * is always ready for reading and writing (as Linux reports files without a poll method:
 * regular files, directories, /dev/null); an output pipe (stdout, stderr) is always drained,
 * so ready for writing only; a pipe of the program's is readable while bytes wait, hung up
 * (POLLHUP, end of file) when no writer is left, writable while there is room (pipe.c). */
static int xc_ready_mask(const struct xc_ofd *o) {
    if (o->kind == XC_K_INOTIFY)
        return 0;
    if (o->kind == XC_K_PIPE)
        return XC_POLLOUT | XC_POLLWRNORM;
    if (o->kind == XC_K_FIFO)
        return xc_pipe_ready(o->pipe, xc_readable(o), xc_writable(o));
    return XC_POLLIN | XC_POLLOUT | XC_POLLRDNORM | XC_POLLWRNORM;
}

/* Nothing is ready and the caller would wait forever: with one thread and no signals from
 * outside, the program would hang. */
static void xc_block_forever(void) {
    klee_report_error(__FILE__, __LINE__,
                      "poll or select would block forever (nothing ever becomes ready)",
                      "model.err");
}

/* poll and ppoll: nothing waits, the model's descriptors are ready at once; a timeout of 0
 * or more with nothing ready returns 0 (time does not pass in the model). */
static long xc_poll(struct xc_pollfd *fds, unsigned long nfds, int forever) {
    if (nfds > 1024)
        return -XC_EINVAL;
    nfds = xc_conc_below(nfds, 1025);
    if (nfds && !fds)
        return -XC_EFAULT;
    long ready = 0;
    for (unsigned long i = 0; i < nfds; i++) {
        struct xc_pollfd p;
        memcpy(&p, &fds[i], sizeof p);
        p.revents = 0;
        if (p.fd >= 0) {
            struct xc_ofd *o = xc_get(p.fd);
            if (o && o->kind == XC_K_INOTIFY && (p.events & (XC_POLLIN | XC_POLLRDNORM)))
                xc_inotify_events();
            /* POLLHUP and POLLERR are reported whether asked for or not. */
            int mask = o ? xc_ready_mask(o) : 0;
            p.revents = o ? (int16_t)((p.events | XC_POLLHUP | XC_POLLERR) & mask)
                          : XC_POLLNVAL;
        }
        if (p.revents)
            ready++;
        memcpy(&fds[i], &p, sizeof p);
    }
    if (!ready && forever)
        xc_block_forever();
    return ready;
}

/* select and pselect6 over fd_sets of nfds bits (bits past the model's table are ignored,
 * as Linux ignores those past its table): a descriptor asked about that is not open is
 * EBADF; nothing is ever exceptional. */
static long xc_select(long nfds, unsigned long *rd, unsigned long *wr, unsigned long *ex,
                      int forever) {
    if (nfds < 0)
        return -XC_EINVAL;
    int n = nfds > XC_NFD ? XC_NFD : (int)xc_conc_below((unsigned long)nfds, XC_NFD + 1);
    unsigned long *sets[3] = {rd, wr, ex};
    for (int fd = 0; fd < n; fd++) {
        unsigned long bit = 1UL << (fd % 64);
        int asked = 0;
        for (int k = 0; k < 3; k++)
            asked |= sets[k] && (sets[k][fd / 64] & bit);
        if (asked && !xc_get(fd))
            return -XC_EBADF;
    }
    long ready = 0;
    for (int fd = 0; fd < n; fd++) {
        unsigned long bit = 1UL << (fd % 64);
        struct xc_ofd *o = xc_get(fd);
        if (o && o->kind == XC_K_INOTIFY && rd && (rd[fd / 64] & bit))
            xc_inotify_events();
        int mask = o ? xc_ready_mask(o) : 0;
        /* As Linux's select: hung up or in error counts as readable, in error as writable. */
        if (rd && (rd[fd / 64] & bit)) {
            if (mask & (XC_POLLIN | XC_POLLHUP | XC_POLLERR))
                ready++;
            else
                rd[fd / 64] &= ~bit;
        }
        if (wr && (wr[fd / 64] & bit)) {
            if (mask & (XC_POLLOUT | XC_POLLERR))
                ready++;
            else
                wr[fd / 64] &= ~bit;
        }
        if (ex)
            ex[fd / 64] &= ~bit;
    }
    if (!ready && forever)
        xc_block_forever();
    return ready;
}

/* statfs and fstatfs: one local ext4 file system of 4 GiB, half free (pipes answer pipefs). */
static long xc_put_statfs(void *buf, int pipe) {
    if (!buf)
        return -XC_EFAULT;
    struct xc_statfs st;
    memset(&st, 0, sizeof st);
    st.f_type = pipe ? 0x50495045 : 0xEF53;
    st.f_bsize = 4096;
    st.f_frsize = 4096;
    st.f_blocks = 1UL << 20;
    st.f_bfree = st.f_bavail = 1UL << 19;
    st.f_files = 1UL << 18;
    st.f_ffree = 1UL << 17;
    st.f_namelen = 255;
    st.f_flags = 0x20;  /* ST_VALID */
    memcpy(buf, &st, sizeof st);
    return 0;
}

long xc_fd_syscall(long n, long a1, long a2, long a3, long a4, long a5, long a6, int *handled) {
    *handled = 1;
    switch (n) {
    case XC_SYS_read: {
        struct xc_iovec v = {(void *)a2, (size_t)a3};
        return xc_read_common(a1, &v, 1, -1);
    }
    case XC_SYS_pread64: {
        if (a4 < 0)
            return -XC_EINVAL;
        struct xc_iovec v = {(void *)a2, (size_t)a3};
        return xc_read_common(a1, &v, 1, a4);
    }
    case XC_SYS_readv: {
        long c = xc_check_iov(a3);
        return c < 0 ? c : xc_read_common(a1, (const struct xc_iovec *)a2, c, -1);
    }
    case XC_SYS_write: {
        struct xc_iovec v = {(void *)a2, (size_t)a3};
        return xc_write_common(a1, &v, 1, -1);
    }
    case XC_SYS_pwrite64: {
        if (a4 < 0)
            return -XC_EINVAL;
        struct xc_iovec v = {(void *)a2, (size_t)a3};
        return xc_write_common(a1, &v, 1, a4);
    }
    case XC_SYS_writev: {
        long c = xc_check_iov(a3);
        return c < 0 ? c : xc_write_common(a1, (const struct xc_iovec *)a2, c, -1);
    }
    case XC_SYS_open:
        return xc_open((const char *)a1, a2, a3);
    case XC_SYS_creat:
        return xc_open((const char *)a1, XC_O_CREAT | XC_O_WRONLY | XC_O_TRUNC, a2);
    case XC_SYS_openat: {
        const char *p;
        char *owned;
        long e = xc_at(a1, (const char *)a2, &p, &owned);
        if (e)
            return e;
        e = xc_open(p, a3, a4);
        free(owned);
        return e;
    }
    case XC_SYS_close:
        return xc_close(a1);
    case XC_SYS_lseek:
        return xc_lseek(a1, a2, a3);
    case XC_SYS_fstat:
        return xc_fstat(a1, (void *)a2);
    case XC_SYS_stat:
    case XC_SYS_lstat:
        return xc_stat_path((const char *)a1, (void *)a2);
    case XC_SYS_newfstatat:
        return xc_fstatat(a1, (const char *)a2, (void *)a3, a4);
    case XC_SYS_statx:
        return -XC_ENOSYS;  /* musl falls back to fstatat */
    case XC_SYS_access:
        return xc_access(XC_AT_FDCWD, (const char *)a1, a2);
    case XC_SYS_faccessat:
    case XC_SYS_faccessat2:
        return xc_access(a1, (const char *)a2, a3);
    case XC_SYS_ioctl:
        return xc_ioctl(a1, (unsigned long)a2, a3);
    case XC_SYS_fcntl:
        return xc_fcntl(a1, a2, a3);
    case XC_SYS_dup: {
        int i = xc_fdno(a1);
        if (i < 0)
            return -XC_EBADF;
        int nfd = xc_lowest_free(0);
        return nfd < 0 ? -XC_EMFILE : xc_dup_to(i, nfd, 0);
    }
    case XC_SYS_dup2:
    case XC_SYS_dup3: {
        int i = xc_fdno(a1);
        if (i < 0)
            return -XC_EBADF;
        if ((unsigned long)a2 >= XC_NFD)
            return -XC_EBADF;
        int nfd = (int)xc_conc_below((unsigned long)a2, XC_NFD);
        if (n == XC_SYS_dup3) {
            if (nfd == i || (a3 & ~(long)XC_O_CLOEXEC))
                return -XC_EINVAL;
            return xc_dup_to(i, nfd, (a3 & XC_O_CLOEXEC) != 0);
        }
        return xc_dup_to(i, nfd, 0);
    }
    case XC_SYS_ftruncate:
        return xc_ftruncate(a1, a2);
    case XC_SYS_truncate:
        return xc_truncate((const char *)a1, a2);
    case XC_SYS_fadvise64:
    case XC_SYS_fsync:
    case XC_SYS_fdatasync:
    case XC_SYS_syncfs:
    case XC_SYS_flock:
    case XC_SYS_fchown:
        return xc_get(a1) ? 0 : -XC_EBADF;
    case XC_SYS_fchmod: {
        struct xc_ofd *o = xc_get(a1);
        if (!o)
            return -XC_EBADF;
        if (o->kind == XC_K_FILE || o->kind == XC_K_DIR)
            xc_chmod_node(o->file, a2);
        return 0;
    }
    case XC_SYS_sync:
        return 0;
    case XC_SYS_inotify_init:
        return xc_inotify_init1(0);
    case XC_SYS_inotify_init1:
        return xc_inotify_init1(a1);
    case XC_SYS_inotify_add_watch:
        return xc_inotify_add_watch(a1, (const char *)a2, (unsigned long)a3);
    case XC_SYS_inotify_rm_watch:
        return xc_inotify_rm_watch(a1, a2);
    case XC_SYS_copy_file_range:
        return xc_copy_file_range(a1, (long *)a2, a3, (long *)a4, (unsigned long)a5, a6);
    case XC_SYS_sendfile:
        return xc_sendfile(a1, a2, (long *)a3, (unsigned long)a4);
    case XC_SYS_pipe:
        return xc_pipe2((int *)a1, 0);
    case XC_SYS_pipe2:
        return xc_pipe2((int *)a1, a2);
    case XC_SYS_getdents:
    case XC_SYS_getdents64: {
        struct xc_ofd *o = xc_get(a1);
        if (!o)
            return -XC_EBADF;
        if (o->kind != XC_K_DIR)
            return -XC_ENOTDIR;
        if (!xc_fs_dir_known(o->file))
            break;  /* a host directory: its entries are unknown (reported, -ENOSYS) */
        return xc_fs_getdents(o->file, &o->off, &o->dir_last, (unsigned char *)a2,
                              (unsigned long)a3, n == XC_SYS_getdents64);
    }
    case XC_SYS_poll:
        return xc_poll((struct xc_pollfd *)a1, (unsigned long)a2, (int)a3 < 0);
    case XC_SYS_ppoll:
        return xc_poll((struct xc_pollfd *)a1, (unsigned long)a2, a3 == 0);
    case XC_SYS_select:
        return xc_select(a1, (unsigned long *)a2, (unsigned long *)a3, (unsigned long *)a4,
                         a5 == 0);
    case XC_SYS_pselect6:
        return xc_select(a1, (unsigned long *)a2, (unsigned long *)a3, (unsigned long *)a4,
                         a5 == 0);
    case XC_SYS_fstatfs: {
        struct xc_ofd *o = xc_get(a1);
        if (!o)
            return -XC_EBADF;
        return xc_put_statfs((void *)a2, o->kind == XC_K_PIPE || o->kind == XC_K_FIFO);
    }
    case XC_SYS_statfs: {
        struct xc_path r;
        long e = xc_resolve((const char *)a1, &r);
        if (e)
            return e;
        return xc_put_statfs((void *)a2, 0);
    }
    case XC_SYS_unlink:
        return xc_unlinkat(XC_AT_FDCWD, (const char *)a1, 0);
    case XC_SYS_rmdir:
        return xc_unlinkat(XC_AT_FDCWD, (const char *)a1, XC_AT_REMOVEDIR);
    case XC_SYS_unlinkat:
        return xc_unlinkat(a1, (const char *)a2, a3);
    case XC_SYS_mkdir:
        return xc_mkdirat(XC_AT_FDCWD, (const char *)a1, a2);
    case XC_SYS_mkdirat:
        return xc_mkdirat(a1, (const char *)a2, a3);
    case XC_SYS_rename:
        return xc_renameat(XC_AT_FDCWD, (const char *)a1, XC_AT_FDCWD, (const char *)a2, 0);
    case XC_SYS_renameat:
        return xc_renameat(a1, (const char *)a2, a3, (const char *)a4, 0);
    case XC_SYS_renameat2:
        return xc_renameat(a1, (const char *)a2, a3, (const char *)a4, a5);
    case XC_SYS_readlink:
        return xc_readlinkat(XC_AT_FDCWD, (const char *)a1);
    case XC_SYS_readlinkat:
        return xc_readlinkat(a1, (const char *)a2);
    case XC_SYS_chmod:
        return xc_path_op(XC_AT_FDCWD, (const char *)a1, a2, 1);
    case XC_SYS_fchmodat:
        return xc_path_op(a1, (const char *)a2, a3, 1);
    case XC_SYS_chown:
    case XC_SYS_lchown:
    case XC_SYS_utime:
    case XC_SYS_utimes:
        return xc_path_op(XC_AT_FDCWD, (const char *)a1, 0, 0);
    case XC_SYS_fchownat:
    case XC_SYS_futimesat:
        return xc_path_op(a1, (const char *)a2, 0, 0);
    case XC_SYS_utimensat:
        if (!a2)
            return xc_get(a1) ? 0 : -XC_EBADF;
        return xc_path_op(a1, (const char *)a2, 0, 0);
    case XC_SYS_umask: {
        long old = xc_umask;
        xc_umask = (uint32_t)a1 & 0777;
        return old;
    }
    case XC_SYS_getcwd:
        __xc_note_pinned(XC_PINNED_CWD);
        return xc_getcwd((char *)a1, (unsigned long)a2);
    case XC_SYS_chdir: {
        struct xc_path r;
        long e = xc_resolve((const char *)a1, &r);
        if (e)
            return e;
        if (r.dev || (r.file->mode & XC_S_IFMT) != XC_S_IFDIR)
            return -XC_ENOTDIR;
        if (r.file == &xc_root)
            return 0;
        break;  /* another working directory is not modelled */
    }
    case XC_SYS_fchdir: {
        struct xc_ofd *o = xc_get(a1);
        if (!o)
            return -XC_EBADF;
        if (o->kind != XC_K_DIR)
            return -XC_ENOTDIR;
        if (o->file == &xc_root)
            return 0;
        break;
    }
    default:
        break;
    }
    *handled = 0;
    return -XC_ENOSYS;
}

long xc_fd_map(long fd, long off, unsigned char *dst, size_t len, int shared_write) {
    struct xc_ofd *o = xc_get(fd);
    if (!o)
        return -XC_EBADF;
    if (o->kind == XC_K_ZERO || o->kind == XC_K_NULL)
        return 0;
    if (o->kind != XC_K_FILE || shared_write)
        return -XC_ENODEV;
    if (!xc_readable(o))
        return -XC_EACCES;
    xc_file_pread(o->file, dst, len, (unsigned long)off);
    return 0;
}
