/* Native test: the system calls that are not about files. Modes (run.sh checks the exit
 * status and output):
 *   basic    memory, ids, time, uname, limits, randomness, signal handlers
 *   exit     writes "bye", exit_group(259): status 3
 *   sigterm  kill(self, SIGTERM): killed by signal 15
 *   abort    musl's abort: rt_sigprocmask, then tkill(tid, SIGABRT): killed by signal 6
 *   ignored  SIGTERM ignored, then raised: the process goes on and exits 0 */
#include <stdint.h>
#include <stdlib.h>

#include "t.h"

static int got_signal;
static void on_usr1(int sig) { got_signal = sig; }

static void set_handler(int sig, long handler, unsigned long flags) {
    long act[4] = {handler, (long)flags, 0, 0};
    CHECK_EQ(SYS(XC_SYS_rt_sigaction, sig, act, 0, 8), 0);
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    char *args[] = {"prog", 0};
    __xc_env_init(1, args);

    if (strcmp(mode, "basic") == 0) {
        /* brk never moves */
        long brk0 = SYS(XC_SYS_brk, 0);
        CHECK_EQ(SYS(XC_SYS_brk, brk0 + 4096), brk0);
        /* anonymous mmap: zeroed, page-aligned, writable; munmap of the whole block */
        unsigned char *m = (unsigned char *)SYS(XC_SYS_mmap, 0, 10000, 3, 0x22, -1, 0);
        CHECK(((uintptr_t)m & 4095) == 0);
        CHECK(m[0] == 0 && m[9999] == 0 && m[12287] == 0);
        m[12287] = 1;
        CHECK_EQ(SYS(XC_SYS_munmap, m, 10000), 0);
        CHECK_EQ(SYS(XC_SYS_mmap, 0, 0, 3, 0x22, -1, 0), -XC_EINVAL);
        CHECK_EQ(SYS(XC_SYS_mremap, 0, 4096, 8192, 1), -XC_ENOMEM);
        CHECK_EQ(SYS(XC_SYS_madvise, 0, 4096, 4), 0);
        /* ids */
        CHECK_EQ(SYS(XC_SYS_getpid), XC_PID);
        CHECK_EQ(SYS(XC_SYS_gettid), XC_PID);
        CHECK_EQ(SYS(XC_SYS_set_tid_address, 0), XC_PID);
        CHECK_EQ(SYS(XC_SYS_getppid), XC_PPID);
        CHECK_EQ(SYS(XC_SYS_getuid), 0);
        CHECK_EQ(SYS(XC_SYS_getegid), 0);
        CHECK_EQ(SYS(XC_SYS_set_robust_list, 0, 24), 0);
        /* time */
        struct xc_timespec ts;
        CHECK_EQ(SYS(XC_SYS_clock_gettime, 0, &ts), 0);
        CHECK_EQ(ts.sec, XC_EPOCH);
        CHECK_EQ(ts.nsec, 0);
        long t = 0;
        CHECK_EQ(SYS(XC_SYS_time, &t), XC_EPOCH);
        CHECK_EQ(t, XC_EPOCH);
        int64_t tv[2];
        CHECK_EQ(SYS(XC_SYS_gettimeofday, tv, 0), 0);
        CHECK_EQ(tv[0], XC_EPOCH);
        CHECK_EQ(SYS(XC_SYS_nanosleep, &ts, 0), 0);
        /* uname */
        char uts[6 * 65];
        CHECK_EQ(SYS(XC_SYS_uname, uts), 0);
        CHECK(strcmp(uts, "Linux") == 0);
        CHECK(strcmp(uts + 4 * 65, "x86_64") == 0);
        /* limits, cpus */
        unsigned long lim[2];
        CHECK_EQ(SYS(XC_SYS_prlimit64, 0, XC_RLIMIT_NOFILE, 0, lim), 0);
        CHECK_EQ(lim[0], XC_NFD);
        CHECK_EQ(SYS(XC_SYS_getrlimit, XC_RLIMIT_STACK, lim), 0);
        CHECK_EQ(lim[0], 8 << 20);
        uint64_t cpus[2] = {~0ULL, ~0ULL};
        CHECK_EQ(SYS(XC_SYS_sched_getaffinity, 0, sizeof cpus, cpus), 8);
        CHECK_EQ(cpus[0], 1);
        /* randomness: deterministic */
        unsigned char r1[8], r2[8];
        CHECK_EQ(SYS(XC_SYS_getrandom, r1, 8, 0), 8);
        long fu = SYS(XC_SYS_open, "/dev/urandom", XC_O_RDONLY);
        CHECK_EQ(SYS(XC_SYS_read, fu, r2, 8), 8);
        CHECK(memcmp(r1, r2, 8) != 0);
        /* signals: a handler runs, the old action is reported, SIG_IGN ignores */
        set_handler(10, (long)on_usr1, 0);
        CHECK_EQ(SYS(XC_SYS_kill, XC_PID, 10), 0);
        CHECK_EQ(got_signal, 10);
        long old[4];
        CHECK_EQ(SYS(XC_SYS_rt_sigaction, 10, 0, old, 8), 0);
        CHECK_EQ(old[0], (long)on_usr1);
        CHECK_EQ(SYS(XC_SYS_rt_sigaction, XC_SIGKILL, old, 0, 8), -XC_EINVAL);
        CHECK_EQ(SYS(XC_SYS_rt_sigprocmask, 0, old, old, 8), 0);
        CHECK_EQ(SYS(XC_SYS_kill, XC_PID, 0), 0);
        CHECK_EQ(SYS(XC_SYS_kill, 1234, 15), -XC_ESRCH);
        CHECK_EQ(SYS(XC_SYS_kill, XC_PID, XC_SIGCHLD), 0);
        /* arch_prctl */
        long fsb = 0;
        CHECK_EQ(SYS(XC_SYS_arch_prctl, XC_ARCH_SET_FS, 0x1234), 0);
        CHECK_EQ(SYS(XC_SYS_arch_prctl, XC_ARCH_GET_FS, &fsb), 0);
        CHECK_EQ(fsb, 0x1234);
        return t_done("t_misc basic");
    }
    if (strcmp(mode, "exit") == 0) {
        t_write(1, "bye\n");
        SYS(XC_SYS_exit_group, 259);
        return 99;
    }
    if (strcmp(mode, "sigterm") == 0) {
        SYS(XC_SYS_kill, XC_PID, XC_SIGTERM);
        return 99;
    }
    if (strcmp(mode, "abort") == 0) {
        unsigned long all = ~0UL;
        SYS(XC_SYS_rt_sigprocmask, 0, &all, 0, 8);
        SYS(XC_SYS_tkill, SYS(XC_SYS_gettid), XC_SIGABRT);
        return 99;
    }
    if (strcmp(mode, "ignored") == 0) {
        set_handler(XC_SIGTERM, 1, 0);
        CHECK_EQ(SYS(XC_SYS_tgkill, XC_PID, XC_PID, XC_SIGTERM), 0);
        return t_done("t_misc ignored");
    }
    fprintf(stderr, "unknown mode %s\n", mode);
    return 2;
}
