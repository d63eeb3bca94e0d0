/* Native test: __xc_env_reset. "Program A" reads, writes, creates, deletes, dups and leaves
 * descriptors open; after the reset "program B" must find everything as it was at the start:
 * offsets, contents, the descriptor table, umask, argv, inode numbers. Environment
 *   prog --sym-files 1 4 --sym-stdin 4 --sym-arg 2 plain
 * with A-data = "abcd", stdin = "wxyz", arg00 = "hi"; host.txt in the working directory. */
#include <stdint.h>

#include "t.h"

static long ino_of(const char *path) {
    struct xc_stat st;
    if (SYS(XC_SYS_stat, path, &st) < 0)
        return -1;
    return (long)st.st_ino;
}

int main(void) {
    char *args[] = {"prog", "--sym-files", "1", "4", "--sym-stdin", "4", "--sym-arg", "2",
                    "plain", 0};
    long *b = __xc_env_init(9, args);
    char buf[64];
    struct xc_stat st;

    CHECK_EQ(b[0], 3);
    CHECK(strcmp((char *)b[2], "hi") == 0);
    ((char *)b[2])[0] = 'X';

    /* program A */
    CHECK_EQ(SYS(XC_SYS_read, 0, buf, 2), 2);
    CHECK_MEM(buf, "wx");
    long fa = SYS(XC_SYS_open, "A", XC_O_RDWR);
    CHECK_EQ(fa, 3);
    CHECK_EQ(t_write(fa, "ZZ"), 2);
    CHECK_EQ(SYS(XC_SYS_lseek, fa, 0, XC_SEEK_END), 4);
    CHECK_EQ(t_write(fa, "tail"), 4);
    CHECK_EQ(SYS(XC_SYS_pread64, fa, buf, 8, 0), 8);
    CHECK_MEM(buf, "ZZcdtail");
    long ft = SYS(XC_SYS_open, "tmp", XC_O_WRONLY | XC_O_CREAT, 0644);
    CHECK_EQ(ft, 4);
    CHECK_EQ(t_write(ft, "temp"), 4);
    long ino_tmp = ino_of("tmp");
    long fh = SYS(XC_SYS_open, "host.txt", XC_O_RDWR | XC_O_TRUNC);
    CHECK_EQ(t_write(fh, "overwritten"), 11);
    long ino_host = ino_of("host.txt");
    CHECK_EQ(SYS(XC_SYS_dup2, 1, 9), 9);
    CHECK_EQ(SYS(XC_SYS_close, 2), 0);
    CHECK_EQ(SYS(XC_SYS_umask, 0), 022);
    CHECK_EQ(SYS(XC_SYS_unlink, "A"), 0);
    CHECK_EQ(SYS(XC_SYS_stat, "A", &st), -XC_ENOENT);
    CHECK_EQ(SYS(XC_SYS_open, "A", XC_O_RDONLY), -XC_ENOENT);
    long fa2 = SYS(XC_SYS_open, "A", XC_O_RDWR | XC_O_CREAT, 0644);  /* a new, empty A */
    CHECK(fa2 >= 0);
    CHECK_EQ(SYS(XC_SYS_fstat, fa2, &st), 0);
    CHECK_EQ(st.st_size, 0);
    char rnd_a[16];
    CHECK_EQ(SYS(XC_SYS_getrandom, rnd_a, 16, 0), 16);
    CHECK_EQ(t_write(1, "program A\n"), 10);

    /* what A did to the files, as its end publishes it: A made again (empty), host.txt
     * rewritten, tmp made; in name order, each name, kind, mode, size, contents */
    xc_fs_publish();
    static const unsigned char published[] =
        "A\0F\xa4\x01\0\0" "\0\0\0\0\0\0\0\0"
        "host.txt\0F\xa4\x01\0\0\x0b\0\0\0\0\0\0\0overwritten"
        "tmp\0F\xa4\x01\0\0\x04\0\0\0\0\0\0\0temp";
    CHECK_EQ(xc_native_files_len, sizeof published - 1);
    CHECK(memcmp(xc_native_files, published, sizeof published - 1) == 0);

    /* between the programs */
    long *c = __xc_env_reset();

    /* program B */
    CHECK_EQ(c[0], 3);
    CHECK(strcmp((char *)c[1], "prog") == 0);
    CHECK(strcmp((char *)c[2], "hi") == 0);
    CHECK(strcmp((char *)c[3], "plain") == 0);
    CHECK(c[2] != b[2]);
    CHECK_EQ(SYS(XC_SYS_read, 0, buf, 8), 4);
    CHECK_MEM(buf, "wxyz");
    CHECK_EQ(SYS(XC_SYS_fcntl, 3, XC_F_GETFD), -XC_EBADF);
    CHECK_EQ(SYS(XC_SYS_fcntl, 4, XC_F_GETFD), -XC_EBADF);
    CHECK_EQ(SYS(XC_SYS_fcntl, 9, XC_F_GETFD), -XC_EBADF);
    CHECK_EQ(t_write(2, ""), 0);   /* stderr is open again */
    CHECK_EQ(SYS(XC_SYS_stat, "A", &st), 0);
    CHECK_EQ(st.st_size, 4);
    fa = SYS(XC_SYS_open, "A", XC_O_RDONLY);
    CHECK_EQ(fa, 3);
    CHECK_EQ(SYS(XC_SYS_read, fa, buf, sizeof buf), 4);
    CHECK_MEM(buf, "abcd");
    CHECK_EQ(SYS(XC_SYS_stat, "tmp", &st), -XC_ENOENT);
    fh = SYS(XC_SYS_open, "host.txt", XC_O_RDONLY);
    CHECK_EQ(SYS(XC_SYS_read, fh, buf, sizeof buf), 11);
    CHECK_MEM(buf, "hello host\n");
    CHECK_EQ(ino_of("host.txt"), ino_host);
    ft = SYS(XC_SYS_open, "tmp", XC_O_WRONLY | XC_O_CREAT | XC_O_EXCL, 0644);
    CHECK(ft >= 0);
    CHECK_EQ(ino_of("tmp"), ino_tmp);   /* the same number A's tmp had */
    CHECK_EQ(SYS(XC_SYS_umask, 022), 022);
    char rnd_b[16];
    CHECK_EQ(SYS(XC_SYS_getrandom, rnd_b, 16, 0), 16);
    CHECK(memcmp(rnd_a, rnd_b, 16) == 0);
    CHECK_EQ(SYS(XC_SYS_getrandom, rnd_b, 16, 0), 16);
    CHECK(memcmp(rnd_a, rnd_b, 16) != 0);
    CHECK_EQ(t_write(1, "program B\n"), 10);

    /* and once more: a second reset restores the same again */
    c = __xc_env_reset();
    CHECK_EQ(SYS(XC_SYS_stat, "tmp", &st), -XC_ENOENT);
    CHECK_EQ(SYS(XC_SYS_read, 0, buf, 1), 1);
    CHECK_MEM(buf, "w");
    CHECK(strcmp((char *)c[2], "hi") == 0);

    return t_done("t_reset");
}
