/* Helpers for the native tests of the system-call model: checks that count, and SYS(n, …)
 * calling __xc_syscall with the missing arguments zero. */
#ifndef XC_TEST_T_H
#define XC_TEST_T_H

#include <stdio.h>
#include <string.h>

#include <xcheck/posix.h>

extern long xc_native_notes, xc_native_last_note;
/* What __xc_output recorded as stream 3 (xc_fs_publish's records). */
extern unsigned char xc_native_files[4096];
extern size_t xc_native_files_len;

static int t_pass, t_fail;

#define CHECK(c)                                                                         \
    do {                                                                                 \
        if (c)                                                                           \
            t_pass++;                                                                    \
        else {                                                                           \
            t_fail++;                                                                    \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #c);                 \
        }                                                                                \
    } while (0)

#define CHECK_EQ(a, b)                                                                   \
    do {                                                                                 \
        long t_a_ = (long)(a), t_b_ = (long)(b);                                         \
        if (t_a_ == t_b_)                                                                \
            t_pass++;                                                                    \
        else {                                                                           \
            t_fail++;                                                                    \
            fprintf(stderr, "FAIL %s:%d: %s is %ld, expected %ld\n", __FILE__, __LINE__, \
                    #a, t_a_, t_b_);                                                     \
        }                                                                                \
    } while (0)

#define CHECK_MEM(p, s) CHECK(memcmp((p), (s), sizeof(s) - 1) == 0)

#define SYS(...) SYS_(__VA_ARGS__, 0, 0, 0, 0, 0, 0, 0)
#define SYS_(n, a, b, c, d, e, f, ...)                                                   \
    __xc_syscall((n), (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), (long)(f))

static inline int t_done(const char *name) {
    fprintf(stderr, "%s: %d checks passed, %d failed\n", name, t_pass, t_fail);
    return t_fail != 0;
}

static inline long t_write(int fd, const char *s) { return SYS(XC_SYS_write, fd, s, strlen(s)); }

#endif
