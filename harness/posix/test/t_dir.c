/* Native test: directory listing (getdents64, getdents) of the model's root and of the
 * directories the program makes. Run in a scratch directory holding host.txt, with
 *   prog --sym-files 2 5
 * (A and B, five bytes each). */
#include <stdint.h>
#include <sys/stat.h>

#include "t.h"

/* Lists fd from its offset to the end with getdents64 (or getdents when !is64) in calls of
 * `count` bytes, into out: "name" per entry, separated by spaces. Checks each record's
 * layout on the way: d_reclen a multiple of 8 holding the name and its NUL, zero padding,
 * d_off one more than the previous one. Returns the number of calls that returned bytes. */
static int list(long fd, size_t count, int is64, char *out, size_t outlen) {
    unsigned char buf[4096];
    int calls = 0;
    out[0] = 0;
    long prev_off = -1;
    for (;;) {
        memset(buf, 0xAA, sizeof buf);
        long n = SYS(is64 ? XC_SYS_getdents64 : XC_SYS_getdents, fd, buf, count);
        if (n <= 0) {
            CHECK_EQ(n, 0);
            return calls;
        }
        calls++;
        CHECK((size_t)n <= count);
        for (long p = 0; p < n;) {
            uint16_t reclen;
            int64_t off;
            memcpy(&off, buf + p + 8, 8);
            memcpy(&reclen, buf + p + 16, 2);
            const char *name = (const char *)buf + p + (is64 ? 19 : 18);
            size_t nlen = strlen(name);
            CHECK_EQ(reclen % 8, 0);
            CHECK((size_t)(is64 ? 19 : 18) + nlen + 1 + (is64 ? 0 : 1) <= reclen);
            CHECK(reclen < (is64 ? 19 : 18) + nlen + 1 + (is64 ? 0 : 1) + 8);
            for (size_t k = (is64 ? 19 : 18) + nlen + 1; k < (size_t)reclen - (is64 ? 0 : 1); k++)
                CHECK_EQ(buf[p + k], 0);
            if (prev_off >= 0)
                CHECK_EQ(off, prev_off + 1);
            prev_off = off;
            if (out[0])
                strncat(out, " ", outlen - strlen(out) - 1);
            strncat(out, name, outlen - strlen(out) - 1);
            p += reclen;
        }
    }
}

/* The d_ino and d_type of entry `want` in fd's listing from the start (getdents64). */
static void entry(long fd, const char *want, uint64_t *ino, int *type) {
    unsigned char buf[4096];
    *ino = 0;
    *type = -1;
    CHECK_EQ(SYS(XC_SYS_lseek, fd, 0, XC_SEEK_SET), 0);
    long n = SYS(XC_SYS_getdents64, fd, buf, sizeof buf);
    for (long p = 0; p < n;) {
        uint16_t reclen;
        memcpy(&reclen, buf + p + 16, 2);
        if (strcmp((const char *)buf + p + 19, want) == 0) {
            memcpy(ino, buf + p, 8);
            *type = buf[p + 18];
        }
        p += reclen;
    }
}

static void check_listing(long fd, const char *want) {
    char got[1024];
    CHECK_EQ(SYS(XC_SYS_lseek, fd, 0, XC_SEEK_SET), 0);
    list(fd, 4096, 1, got, sizeof got);
    if (strcmp(got, want) != 0)
        fprintf(stderr, "listing \"%s\", expected \"%s\"\n", got, want);
    CHECK(strcmp(got, want) == 0);
}

int main(void) {
    char *args[] = {"prog", "--sym-files", "2", "5", 0};
    __xc_env_init(4, args);
    char got[1024];
    uint64_t ino;
    int type;

    /* The root by "." (as opendir opens it): ".", "..", then A and B; host files found by
     * name are not listed. */
    CHECK(SYS(XC_SYS_open, "host.txt", XC_O_RDONLY) >= 0);
    long d = SYS(XC_SYS_open, ".", XC_O_RDONLY | XC_O_DIRECTORY | XC_O_CLOEXEC);
    CHECK(d >= 0);
    CHECK_EQ(list(d, 4096, 1, got, sizeof got), 1);
    CHECK(strcmp(got, ". .. A B") == 0);
    /* at the end: 0, again */
    unsigned char small[64];
    CHECK_EQ(SYS(XC_SYS_getdents64, d, small, sizeof small), 0);
    /* lseek to 0 rewinds; SEEK_CUR by 0 tells the position */
    CHECK_EQ(SYS(XC_SYS_lseek, d, 0, XC_SEEK_CUR), 4);
    CHECK_EQ(SYS(XC_SYS_lseek, d, 0, XC_SEEK_SET), 0);
    CHECK_EQ(list(d, 4096, 1, got, sizeof got), 1);
    CHECK(strcmp(got, ". .. A B") == 0);
    /* A buffer of one record at a time (every name here takes 24 bytes), and one too
     * small for any: EINVAL */
    CHECK_EQ(SYS(XC_SYS_lseek, d, 0, XC_SEEK_SET), 0);
    CHECK_EQ(list(d, 24, 1, got, sizeof got), 4);
    CHECK(strcmp(got, ". .. A B") == 0);
    CHECK_EQ(SYS(XC_SYS_lseek, d, 0, XC_SEEK_SET), 0);
    CHECK_EQ(SYS(XC_SYS_getdents64, d, small, 23), -XC_EINVAL);
    CHECK_EQ(SYS(XC_SYS_getdents64, d, small, 47), 24);
    /* lseek to a d_off goes on from there */
    CHECK_EQ(SYS(XC_SYS_lseek, d, 3, XC_SEEK_SET), 3);
    CHECK_EQ(list(d, 4096, 1, got, sizeof got), 1);
    CHECK(strcmp(got, "B") == 0);
    CHECK_EQ(SYS(XC_SYS_lseek, d, -1, XC_SEEK_SET), -XC_EINVAL);
    CHECK_EQ(SYS(XC_SYS_lseek, d, 0, XC_SEEK_END), -XC_EINVAL);
    /* d_ino and d_type: the root is inode 2 and its own parent; A and B are 10 and 11, as
     * their stat says */
    entry(d, ".", &ino, &type);
    CHECK_EQ(ino, 2);
    CHECK_EQ(type, XC_DT_DIR);
    entry(d, "..", &ino, &type);
    CHECK_EQ(ino, 2);
    CHECK_EQ(type, XC_DT_DIR);
    struct xc_stat st;
    CHECK_EQ(SYS(XC_SYS_stat, "B", &st), 0);
    entry(d, "B", &ino, &type);
    CHECK_EQ(ino, st.st_ino);
    CHECK_EQ(ino, 11);
    CHECK_EQ(type, XC_DT_REG);
    /* the old getdents: the same entries in its own layout (d_type in the last byte) */
    CHECK_EQ(SYS(XC_SYS_lseek, d, 0, XC_SEEK_SET), 0);
    CHECK_EQ(list(d, 4096, 0, got, sizeof got), 1);
    CHECK(strcmp(got, ". .. A B") == 0);
    {
        unsigned char b[256];
        CHECK_EQ(SYS(XC_SYS_lseek, d, 2, XC_SEEK_SET), 2);
        CHECK_EQ(SYS(XC_SYS_getdents, d, b, sizeof b), 48);
        CHECK_EQ(b[18], 'A');
        CHECK_EQ(b[23], XC_DT_REG);
        uint64_t i0;
        memcpy(&i0, b, 8);
        CHECK_EQ(i0, 10);
    }

    /* Files created appear, in name order; files removed disappear; renamed files change
     * name; a directory made is listed with DT_DIR, and lists its own entries. */
    long f1 = SYS(XC_SYS_open, "a2", XC_O_WRONLY | XC_O_CREAT, 0644);
    CHECK(f1 >= 0);
    CHECK(SYS(XC_SYS_open, "/0x", XC_O_WRONLY | XC_O_CREAT, 0644) >= 0);
    CHECK_EQ(SYS(XC_SYS_mkdir, "dir", 0755), 0);
    CHECK(SYS(XC_SYS_open, "dir/in", XC_O_WRONLY | XC_O_CREAT, 0644) >= 0);
    check_listing(d, ". .. 0x A B a2 dir");
    entry(d, "dir", &ino, &type);
    CHECK_EQ(type, XC_DT_DIR);
    CHECK_EQ(SYS(XC_SYS_stat, "dir", &st), 0);
    CHECK_EQ(ino, st.st_ino);
    CHECK_EQ(SYS(XC_SYS_unlink, "A"), 0);
    CHECK_EQ(SYS(XC_SYS_rename, "B", "C"), 0);
    check_listing(d, ". .. 0x C a2 dir");
    long sub = SYS(XC_SYS_open, "dir", XC_O_RDONLY | XC_O_DIRECTORY);
    CHECK(sub >= 0);
    check_listing(sub, ". .. in");
    entry(sub, ".", &ino, &type);
    CHECK_EQ(ino, st.st_ino);
    entry(sub, "..", &ino, &type);
    CHECK_EQ(ino, 2);
    /* "/" names the same root */
    long slash = SYS(XC_SYS_open, "/", XC_O_RDONLY | XC_O_DIRECTORY);
    check_listing(slash, ". .. 0x C a2 dir");
    /* removing entries already listed skips nothing (rm -r's pattern: list some, remove
     * them, list on) */
    CHECK_EQ(SYS(XC_SYS_lseek, d, 0, XC_SEEK_SET), 0);
    unsigned char b3[72];
    CHECK_EQ(SYS(XC_SYS_getdents64, d, b3, sizeof b3), 72);   /* ".", "..", "0x" */
    CHECK_EQ(SYS(XC_SYS_unlink, "/0x"), 0);
    CHECK_EQ(list(d, 4096, 1, got, sizeof got), 1);
    CHECK(strcmp(got, "C a2 dir") == 0);

    /* errors: not a directory, not open */
    CHECK_EQ(SYS(XC_SYS_getdents64, 0, small, sizeof small), -XC_ENOTDIR);
    CHECK_EQ(SYS(XC_SYS_getdents64, f1, small, sizeof small), -XC_ENOTDIR);
    CHECK_EQ(SYS(XC_SYS_getdents64, 40, small, sizeof small), -XC_EBADF);
    /* a directory of the host: its entries are unknown, reported as not modelled */
    CHECK_EQ(mkdir("hostdir", 0755), 0);
    long h = SYS(XC_SYS_open, "hostdir", XC_O_RDONLY | XC_O_DIRECTORY);
    CHECK(h >= 0);
    long before = xc_native_notes;
    CHECK_EQ(SYS(XC_SYS_getdents64, h, small, sizeof small), -XC_ENOSYS);
    CHECK_EQ(xc_native_notes, before + 1);
    CHECK_EQ(xc_native_last_note, XC_SYS_getdents64);

    /* after the reset, the next program sees the initial listing */
    __xc_env_reset();
    d = SYS(XC_SYS_open, ".", XC_O_RDONLY | XC_O_DIRECTORY);
    CHECK_EQ(d, 3);
    check_listing(d, ". .. A B");

    return t_done("t_dir");
}
