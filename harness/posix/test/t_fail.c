/* Native test: --max-fail. The failure counters read_fail, write_fail, close_fail,
 * ftruncate_fail and getcwd_fail come from the input file; run.sh runs one mode per input:
 *   count   --max-fail 1, read_fail = 2: the 2nd read fails with EIO, again after reset
 *   budget  --max-fail 1, read_fail = 1, close_fail = 1: only the first failure happens
 *   close   --max-fail 3, close_fail = 2, write_fail = 1, getcwd_fail = 1: a bad-fd close
 *           counts, a failed close leaves the fd open, stdout writes can fail
 *   none    no --max-fail: nothing fails, no counter objects */
#include <stdint.h>
#include <stdlib.h>

#include "t.h"

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    char buf[16];
    if (strcmp(mode, "count") == 0) {
        char *args[] = {"prog", "--max-fail", "1", "--sym-stdin", "8", 0};
        __xc_env_init(5, args);
        for (int round = 0; round < 2; round++) {
            CHECK_EQ(SYS(XC_SYS_read, 0, buf, 2), 2);
            CHECK_EQ(SYS(XC_SYS_read, 0, buf, 2), -XC_EIO);
            CHECK_EQ(SYS(XC_SYS_read, 0, buf, 2), 2);
            CHECK_EQ(SYS(XC_SYS_read, 0, buf, 2), 2);
            __xc_env_reset();
        }
    } else if (strcmp(mode, "budget") == 0) {
        char *args[] = {"prog", "--max-fail", "1", "--sym-stdin", "8", 0};
        __xc_env_init(5, args);
        CHECK_EQ(SYS(XC_SYS_read, 0, buf, 2), -XC_EIO);
        long fd = SYS(XC_SYS_dup, 0);
        CHECK_EQ(SYS(XC_SYS_close, fd), 0);
    } else if (strcmp(mode, "close") == 0) {
        char *args[] = {"prog", "-max-fail", "3", 0};
        __xc_env_init(3, args);
        CHECK_EQ(SYS(XC_SYS_close, 50), -XC_EBADF);
        long fd = SYS(XC_SYS_dup, 1);
        CHECK_EQ(SYS(XC_SYS_close, fd), -XC_EIO);
        CHECK_EQ(SYS(XC_SYS_fcntl, fd, XC_F_GETFD), 0);   /* still open */
        CHECK_EQ(SYS(XC_SYS_close, fd), 0);
        CHECK_EQ(t_write(1, "first\n"), -XC_EIO);
        CHECK_EQ(t_write(1, "second\n"), 7);
        CHECK_EQ(SYS(XC_SYS_getcwd, buf, sizeof buf), -XC_ERANGE);
        CHECK_EQ(SYS(XC_SYS_getcwd, buf, sizeof buf), 2);
    } else if (strcmp(mode, "none") == 0) {
        char *args[] = {"prog", "--sym-stdin", "8", 0};
        __xc_env_init(3, args);
        for (int i = 0; i < 4; i++)
            CHECK_EQ(SYS(XC_SYS_read, 0, buf, 2), 2);
        CHECK_EQ(SYS(XC_SYS_close, 0), 0);
    } else {
        fprintf(stderr, "unknown mode %s\n", mode);
        return 2;
    }
    return t_done(mode);
}
