/* The system-call model's pipes (pipe, pipe2): a buffer of at most 64 KiB, Linux's default
 * capacity, between a read end and a write end. The bytes are kept as written, so symbolic
 * bytes stay symbolic. The program is one process with one thread: a read that would wait
 * for bytes nobody else can write, or a write that would wait for room nobody else can make,
 * would hang, and is a model error, as poll's endless wait is. */
#include <xcheck/posix.h>

struct xc_pipe {
    int used;
    int readers, writers;       /* open descriptions of each end */
    unsigned char *buf;
    size_t cap;
    size_t start, end;          /* the bytes in the pipe are buf[start, end) */
};

/* Each live pipe has an open description of one of its ends, and there are XC_NFD
 * descriptions. */
static struct xc_pipe xc_pipes[XC_NFD];

static void xc_pipe_free(struct xc_pipe *p) {
    if (p->buf)
        free(p->buf);
    p->buf = 0;
    p->cap = p->start = p->end = 0;
    p->readers = p->writers = 0;
    p->used = 0;
}

void xc_pipe_reset(void) {
    for (int i = 0; i < XC_NFD; i++)
        if (xc_pipes[i].used)
            xc_pipe_free(&xc_pipes[i]);
}

struct xc_pipe *xc_pipe_new(void) {
    for (int i = 0; i < XC_NFD; i++) {
        struct xc_pipe *p = &xc_pipes[i];
        if (!p->used) {
            p->used = 1;
            p->readers = p->writers = 1;
            return p;
        }
    }
    return 0;
}

void xc_pipe_hold(struct xc_pipe *p, int rd, int wr) {
    p->readers += rd != 0;
    p->writers += wr != 0;
}

void xc_pipe_drop(struct xc_pipe *p, int rd, int wr) {
    p->readers -= rd != 0;
    p->writers -= wr != 0;
    if (p->readers <= 0 && p->writers <= 0)
        xc_pipe_free(p);
}

size_t xc_pipe_avail(const struct xc_pipe *p) { return p->end - p->start; }

/* Pipes get inode numbers of their own, by slot: the same in A and B when they make their
 * pipes in the same order. */
uint64_t xc_pipe_ino(const struct xc_pipe *p) { return 500 + (uint64_t)(p - xc_pipes); }

static void xc_hang(const char *what) {
    klee_report_error(__FILE__, __LINE__, what, "model.err");
}

long xc_pipe_read(struct xc_pipe *p, void *buf, size_t count, int wait) {
    size_t avail = p->end - p->start;
    if (avail == 0) {
        if (p->writers <= 0)
            return 0;
        if (!wait)
            return -XC_EAGAIN;
        xc_hang("read of an empty pipe would block forever (its write end is open and "
                "nothing else can write)");
    }
    size_t n = count < avail ? count : avail;
    n = xc_conc_below(n, avail + 1);
    memcpy(buf, p->buf + p->start, n);
    p->start += n;
    if (p->start == p->end)
        p->start = p->end = 0;
    return (long)n;
}

long xc_pipe_write(struct xc_pipe *p, const void *buf, size_t count, int wait) {
    if (p->readers <= 0) {
        /* As Linux: SIGPIPE first (its default action ends the process), then EPIPE. */
        xc_signal_self(XC_SIGPIPE, 0);
        return -XC_EPIPE;
    }
    count = xc_conc(count);
    if (count == 0)
        return 0;
    size_t live = p->end - p->start;
    size_t room = XC_PIPE_CAP - live;
    if (count > room) {
        if (wait)
            xc_hang("write to a full pipe would block forever (nothing else can read it)");
        if (room == 0)
            return -XC_EAGAIN;
        count = room;
    }
    if (p->end + count > p->cap) {
        /* A fresh buffer with the bytes in the pipe at its start. */
        size_t cap = p->cap ? p->cap : 256;
        while (cap < live + count)
            cap *= 2;
        if (cap > XC_PIPE_CAP)
            cap = XC_PIPE_CAP;
        unsigned char *nb = malloc(cap);
        if (!nb)
            return -XC_ENOMEM;
        if (live)
            memcpy(nb, p->buf + p->start, live);
        if (p->buf)
            free(p->buf);
        p->buf = nb;
        p->cap = cap;
        p->start = 0;
        p->end = live;
    }
    memcpy(p->buf + p->end, buf, count);
    p->end += count;
    return (long)count;
}

/* As Linux's pipe_poll: the read end is readable while bytes wait and hung up when no write
 * end is open; the write end is writable while there is room and in error when no read end
 * is open. */
int xc_pipe_ready(const struct xc_pipe *p, int rd, int wr) {
    int mask = 0;
    if (rd) {
        if (p->end > p->start)
            mask |= XC_POLLIN | XC_POLLRDNORM;
        if (p->writers <= 0)
            mask |= XC_POLLHUP;
    }
    if (wr) {
        if (p->end - p->start < XC_PIPE_CAP)
            mask |= XC_POLLOUT | XC_POLLWRNORM;
        if (p->readers <= 0)
            mask |= XC_POLLERR;
    }
    return mask;
}
