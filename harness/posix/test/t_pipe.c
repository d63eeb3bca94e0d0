/* Native test: the program's own pipes (pipe, pipe2). Modes (run.sh checks the exit status
 * and output):
 *   basic     reads and writes, end of file, descriptors, poll/select, reset
 *   sigpipe   a write with no read end open: killed by SIGPIPE (status 141)
 *   ignored   the same with SIGPIPE ignored: EPIPE, and the process goes on
 *   hang      a read of an empty pipe whose write end is open: a model error (status 77)
 *   full      a blocking write that does not fit: a model error (status 77)
 *   pollhang  poll without timeout on an empty pipe: a model error (status 77)
 *   inotify   inotify instances and their watches
 *   inotifyread  a read of inotify events: a model error (status 77) */
#include <stdint.h>

#include "t.h"

static void set_handler(int sig, long handler) {
    long act[4] = {handler, 0, 0, 0};
    CHECK_EQ(SYS(XC_SYS_rt_sigaction, sig, act, 0, 8), 0);
}

static int revents(long fd, int events, int timeout) {
    struct xc_pollfd p = {(int32_t)fd, (int16_t)events, 0};
    long n = SYS(XC_SYS_poll, &p, 1, timeout);
    CHECK_EQ(n, p.revents ? 1 : 0);
    return p.revents;
}

static unsigned char big[70000];

static void basic(void) {
    int fds[2] = {-1, -1};
    char buf[64];
    struct xc_stat st;

    CHECK_EQ(SYS(XC_SYS_pipe, fds), 0);
    CHECK_EQ(fds[0], 3);
    CHECK_EQ(fds[1], 4);
    /* a FIFO, not seekable, one end each way */
    CHECK_EQ(SYS(XC_SYS_fstat, 3, &st), 0);
    CHECK_EQ(st.st_mode & XC_S_IFMT, XC_S_IFIFO);
    CHECK_EQ(st.st_size, 0);
    uint64_t ino = st.st_ino;
    CHECK_EQ(SYS(XC_SYS_fstat, 4, &st), 0);
    CHECK_EQ(st.st_ino, ino);
    CHECK_EQ(SYS(XC_SYS_lseek, 3, 0, XC_SEEK_CUR), -XC_ESPIPE);
    CHECK_EQ(SYS(XC_SYS_lseek, 4, 0, XC_SEEK_SET), -XC_ESPIPE);
    CHECK_EQ(SYS(XC_SYS_pread64, 3, buf, 1, 0), -XC_ESPIPE);
    CHECK_EQ(SYS(XC_SYS_fcntl, 3, XC_F_GETFL), XC_O_RDONLY);
    CHECK_EQ(SYS(XC_SYS_fcntl, 4, XC_F_GETFL), XC_O_WRONLY);
    CHECK_EQ(SYS(XC_SYS_fcntl, 3, XC_F_GETPIPE_SZ), 65536);
    CHECK_EQ(SYS(XC_SYS_read, 4, buf, 1), -XC_EBADF);
    CHECK_EQ(t_write(3, "x"), -XC_EBADF);
    struct xc_statfs sf;
    CHECK_EQ(SYS(XC_SYS_fstatfs, 3, &sf), 0);
    CHECK_EQ(sf.f_type, 0x50495045);
    CHECK_EQ(SYS(XC_SYS_mmap, 0, 4096, 1, 2, 3, 0), -XC_ENODEV);

    /* write appends, read consumes what is there */
    CHECK_EQ(revents(3, XC_POLLIN, 0), 0);
    CHECK_EQ(revents(4, XC_POLLOUT, 0), XC_POLLOUT);
    CHECK_EQ(t_write(4, "hello"), 5);
    CHECK_EQ(t_write(4, " pipe"), 5);
    int avail = -1;
    CHECK_EQ(SYS(XC_SYS_ioctl, 3, XC_FIONREAD, &avail), 0);
    CHECK_EQ(avail, 10);
    CHECK_EQ(revents(3, XC_POLLIN | XC_POLLOUT, -1), XC_POLLIN);
    CHECK_EQ(SYS(XC_SYS_read, 3, buf, 3), 3);
    CHECK_MEM(buf, "hel");
    CHECK_EQ(SYS(XC_SYS_read, 3, buf, sizeof buf), 7);
    CHECK_MEM(buf, "lo pipe");
    /* readv: a second buffer does not wait for more bytes */
    CHECK_EQ(t_write(4, "abc"), 3);
    char a3[3], rest[8];
    struct xc_iovec iov[2] = {{a3, 3}, {rest, sizeof rest}};
    CHECK_EQ(SYS(XC_SYS_readv, 3, iov, 2), 3);
    CHECK_MEM(a3, "abc");
    /* select: the empty read end is not readable, the write end is writable */
    unsigned long rd[1] = {1UL << 3}, wr[1] = {1UL << 4};
    long zero[2] = {0, 0};
    CHECK_EQ(SYS(XC_SYS_select, 5, rd, wr, 0, zero), 1);
    CHECK_EQ(rd[0], 0);
    CHECK_EQ(wr[0], 1UL << 4);

    /* dup, dup2, fcntl(F_DUPFD): one more write end; EOF only when all are closed */
    CHECK_EQ(SYS(XC_SYS_dup, 4), 5);
    CHECK_EQ(SYS(XC_SYS_fcntl, 4, XC_F_DUPFD, 10), 10);
    CHECK_EQ(SYS(XC_SYS_close, 4), 0);
    CHECK_EQ(t_write(5, "from five"), 9);
    CHECK_EQ(SYS(XC_SYS_close, 5), 0);
    CHECK_EQ(SYS(XC_SYS_read, 3, buf, sizeof buf), 9);
    CHECK_MEM(buf, "from five");
    CHECK_EQ(SYS(XC_SYS_fcntl, 10, XC_F_SETFL, XC_O_NONBLOCK), 0);
    CHECK_EQ(SYS(XC_SYS_fcntl, 10, XC_F_GETFL), XC_O_WRONLY | XC_O_NONBLOCK);
    CHECK_EQ(SYS(XC_SYS_fcntl, 3, XC_F_GETFL), XC_O_RDONLY);
    CHECK_EQ(SYS(XC_SYS_close, 10), 0);
    CHECK_EQ(SYS(XC_SYS_read, 3, buf, sizeof buf), 0);
    CHECK_EQ(SYS(XC_SYS_read, 3, buf, sizeof buf), 0);
    /* at end of file poll says hung up (asked for or not), select says readable */
    CHECK_EQ(revents(3, XC_POLLIN, -1), XC_POLLHUP);
    CHECK_EQ(revents(3, 0, 0), XC_POLLHUP);
    rd[0] = 1UL << 3;
    CHECK_EQ(SYS(XC_SYS_select, 4, rd, 0, 0, 0), 1);
    CHECK_EQ(rd[0], 1UL << 3);
    CHECK_EQ(SYS(XC_SYS_close, 3), 0);

    /* pipe2: O_NONBLOCK makes an empty read EAGAIN and a full write short, then EAGAIN;
     * O_CLOEXEC sets FD_CLOEXEC on both ends */
    CHECK_EQ(SYS(XC_SYS_pipe2, fds, XC_O_NONBLOCK | XC_O_CLOEXEC), 0);
    CHECK_EQ(fds[0], 3);
    CHECK_EQ(fds[1], 4);
    CHECK_EQ(SYS(XC_SYS_fstat, 3, &st), 0);
    CHECK_EQ(st.st_ino, ino);   /* the first pipe was freed: its slot is used again */
    CHECK_EQ(SYS(XC_SYS_fcntl, 3, XC_F_GETFD), XC_FD_CLOEXEC);
    CHECK_EQ(SYS(XC_SYS_fcntl, 4, XC_F_GETFD), XC_FD_CLOEXEC);
    CHECK_EQ(SYS(XC_SYS_fcntl, 3, XC_F_GETFL), XC_O_RDONLY | XC_O_NONBLOCK);
    CHECK_EQ(SYS(XC_SYS_read, 3, buf, sizeof buf), -XC_EAGAIN);
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (unsigned char)(i * 7);
    CHECK_EQ(SYS(XC_SYS_write, 4, big, sizeof big), 65536);
    CHECK_EQ(SYS(XC_SYS_write, 4, big, 1), -XC_EAGAIN);
    CHECK_EQ(revents(4, XC_POLLOUT, 0), 0);
    CHECK_EQ(SYS(XC_SYS_read, 3, buf, 10), 10);
    CHECK_EQ(buf[9], (char)63);
    CHECK_EQ(revents(4, XC_POLLOUT, 0), XC_POLLOUT);
    CHECK_EQ(SYS(XC_SYS_write, 4, big, 20), 10);
    static unsigned char back[70000];
    CHECK_EQ(SYS(XC_SYS_read, 3, back, sizeof back), 65536);
    CHECK(memcmp(back, big + 10, 65526) == 0);
    CHECK(memcmp(back + 65526, big, 10) == 0);
    CHECK_EQ(SYS(XC_SYS_read, 3, back, sizeof back), -XC_EAGAIN);
    /* the write end with no read end: POLLERR, and EPIPE (SIGPIPE is ignored here) */
    set_handler(XC_SIGPIPE, 1);
    CHECK_EQ(SYS(XC_SYS_close, 3), 0);
    CHECK_EQ(revents(4, XC_POLLOUT, 0), XC_POLLOUT | XC_POLLERR);
    CHECK_EQ(t_write(4, "x"), -XC_EPIPE);
    CHECK_EQ(SYS(XC_SYS_close, 4), 0);

    /* bad arguments */
    CHECK_EQ(SYS(XC_SYS_pipe2, fds, XC_O_DIRECT), -XC_EINVAL);
    CHECK_EQ(SYS(XC_SYS_pipe2, fds, 1), -XC_EINVAL);
    CHECK_EQ(SYS(XC_SYS_pipe, 0), -XC_EFAULT);
    /* a full table: EMFILE, nothing left open */
    int opened = 0;
    while (SYS(XC_SYS_open, "/dev/null", XC_O_RDONLY) >= 0)
        opened++;
    CHECK_EQ(SYS(XC_SYS_close, 3 + opened - 1), 0);
    CHECK_EQ(SYS(XC_SYS_pipe, fds), -XC_EMFILE);
    for (int i = 3; i < 3 + opened - 1; i++)
        CHECK_EQ(SYS(XC_SYS_close, i), 0);

    /* a pipe as stdin and stdout: /dev/stdin opens the read end anew; what is written to
     * fd 1 goes into the pipe, not to the output */
    CHECK_EQ(t_write(1, "before\n"), 7);
    CHECK_EQ(SYS(XC_SYS_pipe, fds), 0);
    CHECK_EQ(SYS(XC_SYS_dup2, 1, 9), 9);
    CHECK_EQ(SYS(XC_SYS_dup2, 4, 1), 1);
    CHECK_EQ(SYS(XC_SYS_dup2, 3, 0), 0);
    CHECK_EQ(t_write(1, "hidden"), 6);
    long in2 = SYS(XC_SYS_open, "/dev/stdin", XC_O_RDONLY);
    CHECK(in2 >= 0);
    CHECK_EQ(SYS(XC_SYS_close, 0), 0);
    CHECK_EQ(SYS(XC_SYS_close, 3), 0);
    CHECK_EQ(SYS(XC_SYS_read, in2, buf, sizeof buf), 6);
    CHECK_MEM(buf, "hidden");
    CHECK_EQ(SYS(XC_SYS_close, 1), 0);
    CHECK_EQ(SYS(XC_SYS_close, 4), 0);
    CHECK_EQ(SYS(XC_SYS_read, in2, buf, sizeof buf), 0);
    CHECK_EQ(SYS(XC_SYS_dup2, 9, 1), 1);
    CHECK_EQ(t_write(1, "after\n"), 6);

    /* reset: the pipes are gone, the table is as at the start */
    CHECK_EQ(SYS(XC_SYS_pipe, fds), 0);
    CHECK_EQ(fds[0], 0);    /* fd 0 was closed: the lowest free descriptors */
    CHECK_EQ(fds[1], 3);
    CHECK_EQ(t_write(fds[1], "left"), 4);
    __xc_env_reset();
    CHECK_EQ(SYS(XC_SYS_fstat, 3, &st), -XC_EBADF);
    CHECK_EQ(SYS(XC_SYS_fstat, 0, &st), 0);
    CHECK_EQ(st.st_mode & XC_S_IFMT, XC_S_IFREG);
    CHECK_EQ(SYS(XC_SYS_pipe, fds), 0);
    CHECK_EQ(fds[0], 3);
    CHECK_EQ(SYS(XC_SYS_fstat, 3, &st), 0);
    CHECK_EQ(st.st_ino, ino);
    CHECK_EQ(SYS(XC_SYS_fcntl, 3, XC_F_GETFL | 0, 0), XC_O_RDONLY);
    int nb = 1;
    CHECK_EQ(SYS(XC_SYS_ioctl, 3, XC_FIONBIO, &nb), 0);
    CHECK_EQ(SYS(XC_SYS_read, 3, buf, sizeof buf), -XC_EAGAIN);
}

/* inotify: watches are kept and numbered, one per file; no events are made. */
static void inotify(void) {
    long in = SYS(XC_SYS_inotify_init1, XC_O_NONBLOCK | XC_O_CLOEXEC);
    CHECK_EQ(in, 3);
    CHECK_EQ(SYS(XC_SYS_inotify_init1, 1), -XC_EINVAL);
    CHECK_EQ(SYS(XC_SYS_inotify_add_watch, in, ".", 0x2), 1);
    CHECK_EQ(SYS(XC_SYS_inotify_add_watch, in, "./", 0x4), 1);
    CHECK_EQ(SYS(XC_SYS_close, SYS(XC_SYS_open, "made", XC_O_CREAT | XC_O_WRONLY, 0644)), 0);
    CHECK_EQ(SYS(XC_SYS_inotify_add_watch, in, "made", 0x2), 2);
    CHECK_EQ(SYS(XC_SYS_inotify_add_watch, in, "made", 0x01000002), -XC_ENOTDIR);
    CHECK_EQ(SYS(XC_SYS_inotify_add_watch, in, "no-such", 0x2), -XC_ENOENT);
    CHECK_EQ(SYS(XC_SYS_inotify_add_watch, in, "made", 0), -XC_EINVAL);
    CHECK_EQ(SYS(XC_SYS_inotify_add_watch, 0, "made", 0x2), -XC_EINVAL);
    CHECK_EQ(SYS(XC_SYS_inotify_add_watch, 29, "made", 0x2), -XC_EBADF);
    CHECK_EQ(SYS(XC_SYS_inotify_rm_watch, in, 1), 0);
    CHECK_EQ(SYS(XC_SYS_inotify_rm_watch, in, 1), -XC_EINVAL);
    CHECK_EQ(SYS(XC_SYS_inotify_rm_watch, in, 3), -XC_EINVAL);
    CHECK_EQ(SYS(XC_SYS_lseek, in, 0, XC_SEEK_SET), -XC_ESPIPE);
    struct xc_stat st;
    CHECK_EQ(SYS(XC_SYS_fstat, in, &st), 0);
    CHECK_EQ(st.st_mode, 0600);
    /* Polled for writing only it is not ready; inotify_init is inotify_init1(0). */
    struct xc_pollfd p = {(int)in, XC_POLLOUT, 0};
    CHECK_EQ(SYS(XC_SYS_poll, &p, 1, 0), 0);
    CHECK_EQ(SYS(XC_SYS_inotify_init), 4);
    CHECK_EQ(SYS(XC_SYS_fcntl, 4, XC_F_GETFL, 0), XC_O_RDONLY);
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    char *args[] = {"prog", 0};
    __xc_env_init(1, args);
    int fds[2];
    char buf[8];
    if (strcmp(mode, "basic") == 0) {
        basic();
    } else if (strcmp(mode, "sigpipe") == 0 || strcmp(mode, "ignored") == 0) {
        if (mode[0] == 'i')
            set_handler(XC_SIGPIPE, 1);
        CHECK_EQ(SYS(XC_SYS_pipe, fds), 0);
        CHECK_EQ(SYS(XC_SYS_close, fds[0]), 0);
        CHECK_EQ(t_write(1, "go\n"), 3);
        CHECK_EQ(t_write(fds[1], "x"), -XC_EPIPE);
        CHECK_EQ(t_write(1, "alive\n"), 6);
    } else if (strcmp(mode, "inotify") == 0) {
        inotify();
    } else if (strcmp(mode, "inotifyread") == 0) {
        long in = SYS(XC_SYS_inotify_init1, XC_O_NONBLOCK);
        CHECK_EQ(SYS(XC_SYS_inotify_add_watch, in, ".", 0x2), 1);
        SYS(XC_SYS_read, in, buf, sizeof buf);
        CHECK(0);
    } else if (strcmp(mode, "hang") == 0) {
        CHECK_EQ(SYS(XC_SYS_pipe, fds), 0);
        CHECK_EQ(t_write(fds[1], "ab"), 2);
        CHECK_EQ(SYS(XC_SYS_read, fds[0], buf, sizeof buf), 2);
        SYS(XC_SYS_read, fds[0], buf, sizeof buf);
        CHECK(0);
    } else if (strcmp(mode, "full") == 0) {
        CHECK_EQ(SYS(XC_SYS_pipe, fds), 0);
        CHECK_EQ(SYS(XC_SYS_write, fds[1], big, 65000), 65000);
        SYS(XC_SYS_write, fds[1], big, 537);
        CHECK(0);
    } else if (strcmp(mode, "pollhang") == 0) {
        CHECK_EQ(SYS(XC_SYS_pipe, fds), 0);
        revents(fds[0], XC_POLLIN, -1);
        CHECK(0);
    } else {
        CHECK(0);
    }
    return t_done("t_pipe");
}
