/* Native test: file and descriptor system calls. Run in an empty scratch directory holding
 * host.txt ("hello host\n"), with the environment
 *   prog --sym-stdin 10 --sym-files 2 5
 * and stdin = "0123456789", A-data = "alpha", B-data = "bravo". What the model writes to
 * stdout is compared by run.sh. */
#include <stdint.h>

#include "t.h"

int main(void) {
    char *args[] = {"prog", "--sym-stdin", "10", "--sym-files", "2", "5", 0};
    long *b = __xc_env_init(6, args);
    CHECK_EQ(b[0], 1);

    char buf[64];
    struct xc_stat st;

    /* stdin: a regular file of 10 bytes, read in chunks up to EOF */
    CHECK_EQ(SYS(XC_SYS_fstat, 0, &st), 0);
    CHECK_EQ(st.st_mode & XC_S_IFMT, XC_S_IFREG);
    CHECK_EQ(st.st_size, 10);
    CHECK_EQ(st.st_blksize, 4096);
    CHECK_EQ(SYS(XC_SYS_read, 0, buf, 4), 4);
    CHECK_MEM(buf, "0123");
    CHECK_EQ(SYS(XC_SYS_read, 0, buf, 4), 4);
    CHECK_MEM(buf, "4567");
    CHECK_EQ(SYS(XC_SYS_read, 0, buf, 4), 2);
    CHECK_MEM(buf, "89");
    CHECK_EQ(SYS(XC_SYS_read, 0, buf, 4), 0);
    CHECK_EQ(SYS(XC_SYS_read, 0, buf, 0), 0);
    /* readv as musl's stdio does it: the caller's buffer, then the FILE buffer */
    CHECK_EQ(SYS(XC_SYS_lseek, 0, 3, XC_SEEK_SET), 3);
    char a2[2], big[16];
    struct xc_iovec iov[2] = {{a2, 2}, {big, sizeof big}};
    CHECK_EQ(SYS(XC_SYS_readv, 0, iov, 2), 7);
    CHECK_MEM(a2, "34");
    CHECK_MEM(big, "56789");
    CHECK_EQ(SYS(XC_SYS_readv, 0, iov, 2), 0);
    CHECK_EQ(SYS(XC_SYS_pread64, 0, buf, 3, 8), 2);
    CHECK_MEM(buf, "89");
    CHECK_EQ(SYS(XC_SYS_write, 0, "x", 1), -XC_EBADF);

    /* stdout and stderr: pipes */
    CHECK_EQ(t_write(1, "line one\n"), 9);
    struct xc_iovec out[3] = {{"wri", 3}, {"", 0}, {"tev\n", 4}};
    CHECK_EQ(SYS(XC_SYS_writev, 1, out, 3), 7);
    CHECK_EQ(SYS(XC_SYS_fstat, 1, &st), 0);
    CHECK_EQ(st.st_mode & XC_S_IFMT, XC_S_IFIFO);
    CHECK_EQ(SYS(XC_SYS_lseek, 1, 0, XC_SEEK_CUR), -XC_ESPIPE);
    CHECK_EQ(SYS(XC_SYS_ioctl, 1, XC_TCGETS, buf), -XC_ENOTTY);
    CHECK_EQ(SYS(XC_SYS_ioctl, 1, XC_TIOCGWINSZ, buf), -XC_ENOTTY);
    CHECK_EQ(SYS(XC_SYS_ioctl, 0, XC_TCGETS, buf), -XC_ENOTTY);
    CHECK_EQ(SYS(XC_SYS_read, 1, buf, 1), -XC_EBADF);
    CHECK_EQ(SYS(XC_SYS_fcntl, 1, XC_F_GETFL), XC_O_WRONLY);
    CHECK_EQ(SYS(XC_SYS_pwrite64, 1, "x", 1, 0), -XC_ESPIPE);

    /* dup2 of stdout: writes to 5 go to stream 1 */
    CHECK_EQ(SYS(XC_SYS_dup2, 1, 5), 5);
    CHECK_EQ(t_write(5, "via five\n"), 9);
    CHECK_EQ(SYS(XC_SYS_fcntl, 5, XC_F_GETFD), 0);
    CHECK_EQ(SYS(XC_SYS_fcntl, 5, XC_F_SETFD, XC_FD_CLOEXEC), 0);
    CHECK_EQ(SYS(XC_SYS_fcntl, 5, XC_F_GETFD), XC_FD_CLOEXEC);
    CHECK_EQ(SYS(XC_SYS_close, 5), 0);
    CHECK_EQ(t_write(5, "lost\n"), -XC_EBADF);
    CHECK_EQ(SYS(XC_SYS_close, 5), -XC_EBADF);
    CHECK_EQ(SYS(XC_SYS_fcntl, 2, XC_F_DUPFD_CLOEXEC, 7), 7);
    CHECK_EQ(SYS(XC_SYS_fcntl, 7, XC_F_GETFD), XC_FD_CLOEXEC);
    CHECK_EQ(t_write(7, "to stderr\n"), 10);
    CHECK_EQ(SYS(XC_SYS_dup3, 7, 7, 0), -XC_EINVAL);
    CHECK_EQ(SYS(XC_SYS_close, 7), 0);

    /* symbolic file A */
    long fa = SYS(XC_SYS_open, "A", XC_O_RDONLY);
    CHECK_EQ(fa, 3);
    CHECK_EQ(SYS(XC_SYS_read, fa, buf, sizeof buf), 5);
    CHECK_MEM(buf, "alpha");
    CHECK_EQ(SYS(XC_SYS_lseek, fa, 0, XC_SEEK_END), 5);
    CHECK_EQ(SYS(XC_SYS_lseek, fa, -2, XC_SEEK_CUR), 3);
    CHECK_EQ(SYS(XC_SYS_read, fa, buf, sizeof buf), 2);
    CHECK_MEM(buf, "ha");
    CHECK_EQ(SYS(XC_SYS_lseek, fa, -10, XC_SEEK_CUR), -XC_EINVAL);
    CHECK_EQ(SYS(XC_SYS_fstat, fa, &st), 0);
    CHECK_EQ(st.st_size, 5);
    CHECK_EQ(st.st_mode, XC_S_IFREG | 0644);
    /* The values of A's stat object (pinned), as KLEE's A_data_stat would hold them. */
    CHECK_EQ(st.st_ino, 10);
    CHECK_EQ(st.st_dev, 0x803);
    CHECK_EQ(st.st_blocks, 8);
    CHECK_EQ(st.st_mtime_sec, XC_EPOCH);
    long ino_a = (long)st.st_ino;
    CHECK_EQ(SYS(XC_SYS_write, fa, "z", 1), -XC_EBADF);
    CHECK_EQ(SYS(XC_SYS_ioctl, fa, XC_FIONREAD, buf), 0);
    CHECK_EQ(*(int *)buf, 0);
    CHECK_EQ(SYS(XC_SYS_stat, "B", &st), 0);
    CHECK_EQ(st.st_size, 5);
    CHECK(ino_a != (long)st.st_ino);
    CHECK_EQ(SYS(XC_SYS_newfstatat, XC_AT_FDCWD, "A", &st, 0), 0);
    CHECK_EQ((long)st.st_ino, ino_a);
    CHECK_EQ(SYS(XC_SYS_newfstatat, fa, "", &st, XC_AT_EMPTY_PATH), 0);
    CHECK_EQ((long)st.st_ino, ino_a);
    CHECK_EQ(SYS(XC_SYS_statx, XC_AT_FDCWD, "A", 0, 0, buf), -XC_ENOSYS);
    CHECK_EQ(SYS(XC_SYS_access, "A", 4), 0);
    CHECK_EQ(SYS(XC_SYS_access, "A", XC_X_OK), -XC_EACCES);
    CHECK_EQ(SYS(XC_SYS_open, "A", XC_O_RDONLY | XC_O_DIRECTORY), -XC_ENOTDIR);
    CHECK_EQ(SYS(XC_SYS_open, "A", XC_O_CREAT | XC_O_EXCL | XC_O_WRONLY, 0600), -XC_EEXIST);
    /* mmap of A: a private copy; a shared writable mapping is refused */
    const char *map = (const char *)SYS(XC_SYS_mmap, 0, 5, 1, 2 /* MAP_PRIVATE */, fa, 0);
    CHECK(((uintptr_t)map & 4095) == 0);
    CHECK_MEM(map, "alpha\0\0");
    CHECK_EQ(SYS(XC_SYS_munmap, map, 5), 0);
    CHECK_EQ(SYS(XC_SYS_mmap, 0, 5, 3, XC_MAP_SHARED, fa, 0), -XC_ENODEV);
    CHECK_EQ(SYS(XC_SYS_mmap, 0, 5, 3, 2, 1, 0), -XC_ENODEV);

    /* B: append, then read back through another description */
    long fb = SYS(XC_SYS_openat, XC_AT_FDCWD, "B", XC_O_WRONLY | XC_O_APPEND);
    CHECK_EQ(fb, 4);
    CHECK_EQ(t_write(fb, "xy"), 2);
    long fb2 = SYS(XC_SYS_open, "B", XC_O_RDWR);
    CHECK_EQ(fb2, 5);
    CHECK_EQ(SYS(XC_SYS_read, fb2, buf, sizeof buf), 7);
    CHECK_MEM(buf, "bravoxy");
    CHECK_EQ(SYS(XC_SYS_pwrite64, fb2, "R", 1, 0), 1);
    CHECK_EQ(SYS(XC_SYS_pread64, fb2, buf, 3, 0), 3);
    CHECK_MEM(buf, "Rra");
    CHECK_EQ(SYS(XC_SYS_ftruncate, fb2, 2), 0);
    CHECK_EQ(SYS(XC_SYS_fstat, fb2, &st), 0);
    CHECK_EQ(st.st_size, 2);
    CHECK_EQ(SYS(XC_SYS_ftruncate, fa, 2), -XC_EINVAL);
    CHECK_EQ(SYS(XC_SYS_close, fb), 0);
    CHECK_EQ(SYS(XC_SYS_close, fb2), 0);

    /* no such file: C is no symbolic file and not on the host */
    CHECK_EQ(SYS(XC_SYS_open, "C", XC_O_RDONLY), -XC_ENOENT);
    CHECK_EQ(SYS(XC_SYS_stat, "C", &st), -XC_ENOENT);
    CHECK_EQ(SYS(XC_SYS_open, "", XC_O_RDONLY), -XC_ENOENT);
    CHECK_EQ(SYS(XC_SYS_open, "nodir/x", XC_O_WRONLY | XC_O_CREAT, 0644), -XC_ENOENT);

    /* a host file */
    long fh = SYS(XC_SYS_open, "host.txt", XC_O_RDONLY);
    CHECK_EQ(fh, 4);
    CHECK_EQ(SYS(XC_SYS_read, fh, buf, sizeof buf), 11);
    CHECK_MEM(buf, "hello host\n");
    CHECK_EQ(SYS(XC_SYS_close, fh), 0);

    /* a created file */
    long fn = SYS(XC_SYS_open, "new.txt", XC_O_WRONLY | XC_O_CREAT | XC_O_TRUNC, 0666);
    CHECK_EQ(fn, 4);
    CHECK_EQ(t_write(fn, "created"), 7);
    CHECK_EQ(SYS(XC_SYS_lseek, fn, 10, XC_SEEK_SET), 10);
    CHECK_EQ(t_write(fn, "!"), 1);
    CHECK_EQ(SYS(XC_SYS_stat, "new.txt", &st), 0);
    CHECK_EQ(st.st_size, 11);
    CHECK_EQ(st.st_mode, XC_S_IFREG | 0644);  /* umask 022 */
    long fr = SYS(XC_SYS_open, "new.txt", XC_O_RDONLY);
    CHECK_EQ(SYS(XC_SYS_read, fr, buf, sizeof buf), 11);
    CHECK_MEM(buf, "created\0\0\0!");
    CHECK_EQ(SYS(XC_SYS_close, fr), 0);
    CHECK_EQ(SYS(XC_SYS_close, fn), 0);
    CHECK_EQ(SYS(XC_SYS_rename, "new.txt", "moved.txt"), 0);
    CHECK_EQ(SYS(XC_SYS_stat, "new.txt", &st), -XC_ENOENT);
    CHECK_EQ(SYS(XC_SYS_stat, "moved.txt", &st), 0);
    CHECK_EQ(SYS(XC_SYS_rename, "moved.txt", "./moved2.txt"), 0);
    CHECK_EQ(SYS(XC_SYS_rename, "././moved2.txt", "moved.txt"), 0);
    CHECK_EQ(SYS(XC_SYS_stat, "./moved.txt", &st), 0);
    CHECK_EQ(SYS(XC_SYS_stat, "moved.txt/", &st), -XC_ENOTDIR);
    CHECK_EQ(SYS(XC_SYS_unlink, "moved.txt"), 0);
    CHECK_EQ(SYS(XC_SYS_unlink, "moved.txt"), -XC_ENOENT);
    CHECK_EQ(SYS(XC_SYS_mkdir, "sub", 0755), 0);
    CHECK_EQ(SYS(XC_SYS_mkdir, "sub", 0755), -XC_EEXIST);
    CHECK_EQ(SYS(XC_SYS_stat, "sub/", &st), 0);
    CHECK_EQ(st.st_mode & XC_S_IFMT, XC_S_IFDIR);
    CHECK_EQ(SYS(XC_SYS_close, SYS(XC_SYS_open, "./sub//f", XC_O_CREAT | XC_O_WRONLY, 0644)), 0);
    CHECK_EQ(SYS(XC_SYS_stat, "sub/f", &st), 0);
    CHECK_EQ(SYS(XC_SYS_stat, "sub/f/", &st), -XC_ENOTDIR);
    CHECK_EQ(SYS(XC_SYS_unlink, "sub/./f"), 0);
    CHECK_EQ(SYS(XC_SYS_unlink, "sub//f"), -XC_ENOENT);
    CHECK_EQ(SYS(XC_SYS_open, "A/x", XC_O_CREAT | XC_O_WRONLY, 0644), -XC_ENOTDIR);
    CHECK_EQ(SYS(XC_SYS_mkdir, "/", 0755), -XC_EEXIST);
    long fs = SYS(XC_SYS_open, "sub", XC_O_RDONLY | XC_O_DIRECTORY);
    CHECK(fs >= 0);
    long fi = SYS(XC_SYS_openat, fs, "in", XC_O_RDWR | XC_O_CREAT, 0644);
    CHECK(fi >= 0);
    CHECK_EQ(SYS(XC_SYS_stat, "sub/in", &st), 0);
    CHECK_EQ(SYS(XC_SYS_rmdir, "sub"), -XC_ENOTEMPTY);
    CHECK_EQ(SYS(XC_SYS_unlinkat, fs, "in", 0), 0);
    CHECK_EQ(SYS(XC_SYS_rmdir, "sub"), 0);
    CHECK_EQ(SYS(XC_SYS_close, fi), 0);
    CHECK_EQ(SYS(XC_SYS_close, fs), 0);

    /* directories, devices */
    long fd = SYS(XC_SYS_open, ".", XC_O_RDONLY | XC_O_DIRECTORY);
    CHECK(fd >= 0);
    CHECK_EQ(SYS(XC_SYS_read, fd, buf, 4), -XC_EISDIR);
    CHECK_EQ(SYS(XC_SYS_fstat, fd, &st), 0);
    CHECK_EQ(st.st_mode & XC_S_IFMT, XC_S_IFDIR);
    CHECK_EQ(SYS(XC_SYS_close, fd), 0);
    CHECK_EQ(SYS(XC_SYS_open, ".", XC_O_WRONLY), -XC_EISDIR);
    long fz = SYS(XC_SYS_open, "/dev/null", XC_O_RDWR);
    CHECK_EQ(SYS(XC_SYS_read, fz, buf, 4), 0);
    CHECK_EQ(t_write(fz, "gone"), 4);
    CHECK_EQ(SYS(XC_SYS_close, fz), 0);
    CHECK_EQ(SYS(XC_SYS_open, "/dev/tty", XC_O_RDWR), -XC_ENXIO);
    char cwd[8];
    CHECK_EQ(SYS(XC_SYS_getcwd, cwd, sizeof cwd), 2);
    CHECK_MEM(cwd, "/");
    CHECK_EQ(SYS(XC_SYS_getcwd, cwd, 1), -XC_ERANGE);
    CHECK_EQ(SYS(XC_SYS_umask, 077), 022);
    CHECK_EQ(SYS(XC_SYS_umask, 022), 077);
    CHECK_EQ(SYS(XC_SYS_fadvise64, 0, 0, 0, 0), 0);

    /* poll and select: files and devices are ready at once; stdout only for writing */
    struct xc_pollfd pf[4] = {
        {0, XC_POLLIN | XC_POLLPRI, 7}, {1, XC_POLLIN | XC_POLLOUT, 0}, {-1, XC_POLLIN, 5},
        {29, XC_POLLIN, 0}};
    CHECK_EQ(SYS(XC_SYS_poll, pf, 4, -1), 3);
    CHECK_EQ(pf[0].revents, XC_POLLIN);
    CHECK_EQ(pf[1].revents, XC_POLLOUT);
    CHECK_EQ(pf[2].revents, 0);
    CHECK_EQ(pf[3].revents, XC_POLLNVAL);
    struct xc_pollfd band = {1, XC_POLLRDBAND, 0};  /* coreutils tail's check of stdout */
    CHECK_EQ(SYS(XC_SYS_poll, &band, 1, 0), 0);
    CHECK_EQ(band.revents, 0);
    CHECK_EQ(SYS(XC_SYS_ppoll, pf, 2, 0, 0, 8), 2);
    CHECK_EQ(SYS(XC_SYS_poll, pf, 2000, 0), -XC_EINVAL);
    unsigned long rd[16] = {0}, wr[16] = {0}, ex[16] = {0};
    rd[0] = 1 | 2;  /* stdin, stdout */
    wr[0] = 2;
    ex[0] = 1;
    CHECK_EQ(SYS(XC_SYS_select, 3, rd, wr, ex, 0), 2);
    CHECK_EQ(rd[0], 1);
    CHECK_EQ(wr[0], 2);
    CHECK_EQ(ex[0], 0);
    rd[0] = 1UL << 29;
    CHECK_EQ(SYS(XC_SYS_select, 30, rd, 0, 0, 0), -XC_EBADF);

    /* statfs: a local file system (ext4); pipes are pipefs */
    struct xc_statfs sf;
    CHECK_EQ(SYS(XC_SYS_fstatfs, 0, &sf), 0);
    CHECK_EQ(sf.f_type, 0xEF53);
    CHECK_EQ(sf.f_bsize, 4096);
    CHECK_EQ(SYS(XC_SYS_fstatfs, 1, &sf), 0);
    CHECK_EQ(sf.f_type, 0x50495045);
    CHECK_EQ(SYS(XC_SYS_statfs, "A", &sf), 0);
    CHECK_EQ(SYS(XC_SYS_statfs, "no-such", &sf), -XC_ENOENT);
    CHECK_EQ(SYS(XC_SYS_fstatfs, 29, &sf), -XC_EBADF);

    /* the table has room for at least 32 descriptors */
    int opened = 0;
    for (int i = 0; i < 40; i++)
        if (SYS(XC_SYS_open, "A", XC_O_RDONLY) >= 0)
            opened++;
    CHECK_EQ(opened, 40);

    /* copy_file_range between regular files, at the offsets given or the descriptors' */
    long fc = SYS(XC_SYS_open, "copy", XC_O_RDWR | XC_O_CREAT | XC_O_TRUNC, 0644);
    long fsrc = SYS(XC_SYS_open, "A", XC_O_RDONLY);
    CHECK(fc >= 0 && fsrc >= 0);
    long off_in = 1;
    CHECK_EQ(SYS(XC_SYS_copy_file_range, fsrc, &off_in, fc, 0, 3, 0), 3);
    CHECK_EQ(off_in, 4);
    CHECK_EQ(SYS(XC_SYS_lseek, fsrc, 0, XC_SEEK_CUR), 0);
    CHECK_EQ(SYS(XC_SYS_lseek, fc, 0, XC_SEEK_CUR), 3);
    CHECK_EQ(SYS(XC_SYS_copy_file_range, fsrc, 0, fc, 0, 100, 0), 5);
    CHECK_EQ(SYS(XC_SYS_lseek, fsrc, 0, XC_SEEK_CUR), 5);
    CHECK_EQ(SYS(XC_SYS_copy_file_range, fsrc, 0, fc, 0, 100, 0), 0);
    CHECK_EQ(SYS(XC_SYS_pread64, fc, buf, sizeof buf, 0), 8);
    CHECK_MEM(buf, "lphalpha");
    long off_out = 1;
    off_in = 0;
    CHECK_EQ(SYS(XC_SYS_copy_file_range, fsrc, &off_in, fc, &off_out, 2, 0), 2);
    CHECK_EQ(off_out, 3);
    CHECK_EQ(SYS(XC_SYS_pread64, fc, buf, 3, 0), 3);
    CHECK_MEM(buf, "lal");
    CHECK_EQ(SYS(XC_SYS_copy_file_range, fsrc, 0, 1, 0, 1, 0), -XC_EINVAL);
    CHECK_EQ(SYS(XC_SYS_copy_file_range, fsrc, 0, fc, 0, 1, 1), -XC_EINVAL);
    CHECK_EQ(SYS(XC_SYS_copy_file_range, fc, 0, fsrc, 0, 1, 0), -XC_EBADF);
    long o2 = 0, o3 = 2;
    CHECK_EQ(SYS(XC_SYS_copy_file_range, fc, &o2, fc, &o3, 3, 0), -XC_EINVAL);
    CHECK_EQ(SYS(XC_SYS_copy_file_range, fsrc, 0, 29, 0, 1, 0), -XC_EBADF);
    /* sendfile from a regular file to any descriptor: here the model's stdout */
    off_in = 3;
    CHECK_EQ(SYS(XC_SYS_sendfile, 1, fsrc, &off_in, 100), 2);
    CHECK_EQ(off_in, 5);
    CHECK_EQ(SYS(XC_SYS_sendfile, 1, 0, 0, 0), 0);
    CHECK_EQ(SYS(XC_SYS_sendfile, fsrc, 1, 0, 1), -XC_EBADF);
    CHECK_EQ(SYS(XC_SYS_close, fc), 0);
    CHECK_EQ(SYS(XC_SYS_close, fsrc), 0);

    /* not modelled: -ENOSYS and a note */
    long before = xc_native_notes;
    CHECK_EQ(SYS(XC_SYS_socket, 2, 1, 0), -XC_ENOSYS);
    CHECK_EQ(xc_native_notes, before + 1);
    CHECK_EQ(xc_native_last_note, XC_SYS_socket);
    CHECK_EQ(SYS(999), -XC_ENOSYS);
    CHECK_EQ(xc_native_last_note, 999);
    CHECK_EQ(SYS(XC_SYS_getdents64, 0, buf, sizeof buf), -XC_ENOTDIR);
    CHECK_EQ(xc_native_last_note, 999);

    return t_done("t_io");
}
