/* The system-call model's entry point __xc_syscall and the calls that are not about files:
 * memory (brk, mmap, munmap, …), process identity, fixed deterministic time, deterministic
 * randomness, uname/sysinfo/limits, signals (dispositions kept, signals to oneself delivered
 * or fatal), exit. Whatever is not modelled is reported with __xc_note_syscall and fails
 * with -ENOSYS. */
#include <xcheck/posix.h>

/* ---- state that __xc_env_reset restores --------------------------------------------------- */

struct xc_sigaction {
    long handler;
    unsigned long flags;
    long restorer;
    unsigned long mask;
};

struct xc_map {
    unsigned char *addr;
    void *raw;
    size_t len;
};

static struct xc_sigaction xc_sigs[XC_NSIG + 1];
static uint64_t xc_rand;
static long xc_fs_base;
static struct xc_map *xc_maps;
static size_t xc_nmaps, xc_maps_cap;

#define XC_RAND_SEED 0x5eed0f5ca1ab1e5ULL

void xc_sys_reset(void) {
    memset(xc_sigs, 0, sizeof xc_sigs);
    xc_rand = XC_RAND_SEED;
    xc_fs_base = 0;
    /* Mappings made by the first program are forgotten (not freed: its memory is its own). */
    xc_nmaps = 0;
}

/* SplitMix64: the bytes of getrandom and /dev/urandom, the same for A and B. */
void xc_random_fill(unsigned char *buf, size_t n) {
    size_t i = 0;
    __xc_note_pinned(XC_PINNED_RANDOM);
    while (i < n) {
        uint64_t z = (xc_rand += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        size_t k = n - i < 8 ? n - i : 8;
        memcpy(buf + i, &z, k);
        i += k;
    }
}

/* ---- memory ------------------------------------------------------------------------------ */

static long xc_mmap(long addr, unsigned long len, long prot, long flags, long fd, long off) {
    (void)addr;
    if (len == 0 || (off & (XC_PAGE_SIZE - 1)))
        return -XC_EINVAL;
    if (flags & XC_MAP_FIXED)
        return -XC_ENOMEM;
    len = xc_conc(len);
    if (len > (1UL << 30))
        return -XC_ENOMEM;
    size_t alen = (len + XC_PAGE_SIZE - 1) & ~(size_t)(XC_PAGE_SIZE - 1);
    /* Page-aligned zeroed memory (musl's malloc finds its metadata by masking addresses). */
    unsigned char *raw = calloc(1, alen), *p = raw;
    if (raw && ((uintptr_t)raw & (XC_PAGE_SIZE - 1))) {
        free(raw);
        raw = calloc(1, alen + XC_PAGE_SIZE);
        if (raw)
            p = raw + ((XC_PAGE_SIZE - ((uintptr_t)raw & (XC_PAGE_SIZE - 1))) &
                       (XC_PAGE_SIZE - 1));
    }
    if (!raw)
        return -XC_ENOMEM;
    if (!(flags & XC_MAP_ANONYMOUS)) {
        long e = xc_fd_map(fd, off, p, len,
                           (flags & XC_MAP_SHARED) && (prot & XC_PROT_WRITE));
        if (e) {
            free(raw);
            return e;
        }
    }
    if (xc_nmaps == xc_maps_cap) {
        size_t cap = xc_maps_cap ? xc_maps_cap * 2 : 16;
        struct xc_map *m = realloc(xc_maps, cap * sizeof *m);
        if (!m) {
            free(raw);
            return -XC_ENOMEM;
        }
        xc_maps = m;
        xc_maps_cap = cap;
    }
    xc_maps[xc_nmaps].addr = p;
    xc_maps[xc_nmaps].raw = raw;
    xc_maps[xc_nmaps].len = alen;
    xc_nmaps++;
    return (long)p;
}

static long xc_munmap(long addr, unsigned long len) {
    if ((addr & (XC_PAGE_SIZE - 1)) || len == 0)
        return -XC_EINVAL;
    size_t alen = (len + XC_PAGE_SIZE - 1) & ~(size_t)(XC_PAGE_SIZE - 1);
    for (size_t i = 0; i < xc_nmaps; i++) {
        if ((long)xc_maps[i].addr == addr) {
            if (xc_maps[i].len == alen) {
                free(xc_maps[i].raw);
                xc_maps[i] = xc_maps[--xc_nmaps];
            }
            return 0;   /* a partial unmap keeps the memory */
        }
    }
    return 0;
}

/* ---- signals ----------------------------------------------------------------------------- */

static int xc_default_ignored(int sig) {
    return sig == XC_SIGCHLD || sig == XC_SIGURG || sig == XC_SIGWINCH || sig == XC_SIGCONT ||
           /* stopping is not modelled: the process goes on at once */
           sig == XC_SIGSTOP || sig == XC_SIGTSTP || sig == XC_SIGTTIN || sig == XC_SIGTTOU;
}

/* A signal the process sends itself: delivered at once. */
long xc_signal_self(long sig, int code) {
    if (sig == 0)
        return 0;
    if (sig < 1 || sig > XC_NSIG)
        return -XC_EINVAL;
    int s = (int)xc_conc_below((unsigned long)sig, XC_NSIG + 1);
    struct xc_sigaction *a = &xc_sigs[s];
    if (s != XC_SIGKILL && s != XC_SIGSTOP && a->handler == 1)
        return 0;   /* SIG_IGN */
    if (s != XC_SIGKILL && s != XC_SIGSTOP && a->handler != 0) {
        long h = a->handler;
        unsigned long fl = a->flags;
        if (fl & XC_SA_RESETHAND)
            a->handler = 0;
        if (fl & XC_SA_SIGINFO) {
            int info[32];   /* siginfo_t: signo, errno, code, then pid and uid */
            memset(info, 0, sizeof info);
            info[0] = s;
            info[2] = code;
            info[4] = XC_PID;
            ((void (*)(int, void *, void *))h)(s, info, 0);
        } else {
            ((void (*)(int))h)(s);
        }
        return 0;
    }
    if (xc_default_ignored(s))
        return 0;
    xc_fs_publish();
    __xc_exit_signal(s);
}

static long xc_rt_sigaction(long sig, const void *act, void *oact, long size) {
    if (size != 8 || sig < 1 || sig > XC_NSIG)
        return -XC_EINVAL;
    int s = (int)xc_conc_below((unsigned long)sig, XC_NSIG + 1);
    if (act && (s == XC_SIGKILL || s == XC_SIGSTOP))
        return -XC_EINVAL;
    if (oact)
        memcpy(oact, &xc_sigs[s], sizeof xc_sigs[s]);
    if (act)
        memcpy(&xc_sigs[s], act, sizeof xc_sigs[s]);
    return 0;
}

/* ---- small fixed answers ----------------------------------------------------------------- */

static void xc_put_str(char *dst, const char *s) {
    size_t n = xc_strlen(s) + 1;
    memcpy(dst, s, n);
}

static long xc_uname(char *buf) {
    __xc_note_pinned(XC_PINNED_SYSTEM);
    memset(buf, 0, 6 * 65);
    xc_put_str(buf + 0 * 65, "Linux");
    xc_put_str(buf + 1 * 65, "xcheck");
    xc_put_str(buf + 2 * 65, "5.15.0");
    xc_put_str(buf + 3 * 65, "#1 SMP");
    xc_put_str(buf + 4 * 65, "x86_64");
    xc_put_str(buf + 5 * 65, "(none)");
    return 0;
}

static long xc_sysinfo(unsigned char *buf) {
    __xc_note_pinned(XC_PINNED_SYSTEM);
    memset(buf, 0, 112);
    long uptime = 3600;
    unsigned long totalram = 1UL << 30, freeram = 1UL << 29;
    unsigned short procs = 1;
    unsigned int unit = 1;
    memcpy(buf + 0, &uptime, 8);
    memcpy(buf + 32, &totalram, 8);
    memcpy(buf + 40, &freeram, 8);
    memcpy(buf + 80, &procs, 2);
    memcpy(buf + 104, &unit, 4);
    return 0;
}

static long xc_limit(long res, void *old) {
    if (res < 0 || res >= 16)
        return -XC_EINVAL;
    if (old) {
        unsigned long lim[2] = {XC_RLIM_INFINITY, XC_RLIM_INFINITY};
        if (res == XC_RLIMIT_NOFILE)
            lim[0] = lim[1] = XC_NFD;
        else if (res == XC_RLIMIT_STACK)
            lim[0] = 8UL << 20;
        memcpy(old, lim, sizeof lim);
    }
    return 0;
}

static long xc_clock(long clk, void *ts) {
    struct xc_timespec t = {XC_EPOCH, 0};
    __xc_note_pinned(XC_PINNED_CLOCK);
    if (clk == 2 || clk == 3 || clk < 0) {      /* CPU-time clocks */
        t.sec = 0;
        t.nsec = 1000000;
    }
    if (!ts)
        return -XC_EFAULT;
    memcpy(ts, &t, sizeof t);
    return 0;
}

static void xc_put_zero_ids(long a, long b, long c) {
    uint32_t z = 0;
    if (a)
        memcpy((void *)a, &z, 4);
    if (b)
        memcpy((void *)b, &z, 4);
    if (c)
        memcpy((void *)c, &z, 4);
}

/* ---- dispatch ----------------------------------------------------------------------------- */

long __xc_syscall(long n, long a1, long a2, long a3, long a4, long a5, long a6) {
    xc_ensure_init();
    int handled;
    long r = xc_fd_syscall(n, a1, a2, a3, a4, a5, a6, &handled);
    if (handled)
        return r;
    switch (n) {
    /* memory */
    case XC_SYS_brk:
        return XC_BRK;
    case XC_SYS_mmap:
        return xc_mmap(a1, (unsigned long)a2, a3, a4, a5, a6);
    case XC_SYS_munmap:
        return xc_munmap(a1, (unsigned long)a2);
    case XC_SYS_mremap:
        return -XC_ENOMEM;
    case XC_SYS_madvise:
    case XC_SYS_mprotect:
    case XC_SYS_msync:
        return 0;

    /* process */
    case XC_SYS_exit:
    case XC_SYS_exit_group:
        xc_fs_publish();
        __xc_exit((int)(a1 & 0xff));
    case XC_SYS_set_tid_address:   /* musl's start-up: not the program reading its pid */
        return XC_PID;
    case XC_SYS_getpid:
    case XC_SYS_gettid:
    case XC_SYS_getpgrp:
        __xc_note_pinned(XC_PINNED_IDENTITY);
        return XC_PID;
    case XC_SYS_getpgid:
    case XC_SYS_getsid:
        __xc_note_pinned(XC_PINNED_IDENTITY);
        return (a1 == 0 || a1 == XC_PID) ? XC_PID : -XC_ESRCH;
    case XC_SYS_getppid:
        __xc_note_pinned(XC_PINNED_IDENTITY);
        return XC_PPID;
    case XC_SYS_getuid:
    case XC_SYS_geteuid:
    case XC_SYS_getgid:
    case XC_SYS_getegid:
        __xc_note_pinned(XC_PINNED_IDENTITY);
        return 0;
    case XC_SYS_getresuid:
    case XC_SYS_getresgid:
        __xc_note_pinned(XC_PINNED_IDENTITY);
        xc_put_zero_ids(a1, a2, a3);
        return 0;
    case XC_SYS_getgroups:
        return a1 < 0 ? -XC_EINVAL : 0;
    case XC_SYS_setpgid:
        return 0;
    case XC_SYS_set_robust_list:
        return 0;
    case XC_SYS_rseq:
        return -XC_ENOSYS;  /* absent, as on older kernels (musl does not use it) */
    case XC_SYS_arch_prctl:
        if (a1 == XC_ARCH_SET_FS) {
            xc_fs_base = a2;
            return 0;
        }
        if (a1 == XC_ARCH_GET_FS) {
            if (!a2)
                return -XC_EFAULT;
            memcpy((void *)a2, &xc_fs_base, sizeof xc_fs_base);
            return 0;
        }
        return -XC_EINVAL;
    case XC_SYS_sched_yield:
        return 0;
    case XC_SYS_sched_getaffinity: {
        if (a2 < 8)
            return -XC_EINVAL;
        if (!a3)
            return -XC_EFAULT;
        uint64_t one = 1;   /* one CPU */
        memcpy((void *)a3, &one, 8);
        return 8;
    }
    case XC_SYS_prlimit64:
        if (a1 != 0 && a1 != XC_PID)
            return -XC_ESRCH;
        return xc_limit(a2, (void *)a4);
    case XC_SYS_getrlimit:
        return xc_limit(a1, (void *)a2);
    case XC_SYS_setrlimit:
        return xc_limit(a1, 0);
    case XC_SYS_getrusage:
        if (!a2)
            return -XC_EFAULT;
        memset((void *)a2, 0, 144);
        return 0;
    case XC_SYS_times:
        if (a1)
            memset((void *)a1, 0, 32);
        return 100;
    case XC_SYS_uname:
        return a1 ? xc_uname((char *)a1) : -XC_EFAULT;
    case XC_SYS_sysinfo:
        return a1 ? xc_sysinfo((unsigned char *)a1) : -XC_EFAULT;
    case XC_SYS_futex: {
        long op = a2 & ~(long)(128 | 256);   /* private, realtime-clock flags */
        if (op == XC_FUTEX_WAKE || op == 10)
            return 0;
        if (op == XC_FUTEX_WAIT || op == 9) {
            int cur;
            memcpy(&cur, (void *)a1, sizeof cur);
            if (cur != (int)a3)
                return -XC_EAGAIN;
            klee_report_error(__FILE__, __LINE__,
                              "futex wait would block forever (one thread only)", "model.err");
        }
        break;
    }

    /* time */
    case XC_SYS_clock_gettime:
        return xc_clock(a1, (void *)a2);
    case XC_SYS_clock_getres: {
        struct xc_timespec t = {0, 1};
        if (a2)
            memcpy((void *)a2, &t, sizeof t);
        return 0;
    }
    case XC_SYS_gettimeofday: {
        __xc_note_pinned(XC_PINNED_CLOCK);
        if (a1) {
            int64_t tv[2] = {XC_EPOCH, 0};
            memcpy((void *)a1, tv, sizeof tv);
        }
        if (a2)
            memset((void *)a2, 0, 8);
        return 0;
    }
    case XC_SYS_time:
        __xc_note_pinned(XC_PINNED_CLOCK);
        if (a1) {
            long t = XC_EPOCH;
            memcpy((void *)a1, &t, sizeof t);
        }
        return XC_EPOCH;
    case XC_SYS_nanosleep:
    case XC_SYS_clock_nanosleep:
        return 0;
    case XC_SYS_alarm:
        return 0;

    /* randomness */
    case XC_SYS_getrandom: {
        unsigned long len = xc_conc((unsigned long)a2);
        if (len > 33554431)
            len = 33554431;
        xc_random_fill((unsigned char *)a1, len);
        return (long)len;
    }

    /* signals */
    case XC_SYS_rt_sigaction:
        return xc_rt_sigaction(a1, (const void *)a2, (void *)a3, a4);
    case XC_SYS_rt_sigprocmask:
        if (a4 != 8)
            return -XC_EINVAL;
        if (a2 && (a1 < 0 || a1 > 2))
            return -XC_EINVAL;
        if (a3)
            memset((void *)a3, 0, 8);  /* nothing is ever blocked */
        return 0;
    case XC_SYS_sigaltstack:
        if (a2) {
            long old[3] = {0, 2 /* SS_DISABLE */, 0};
            memcpy((void *)a2, old, sizeof old);
        }
        return 0;
    case XC_SYS_kill:
        if (a1 == XC_PID || a1 == 0 || a1 == -XC_PID)
            return xc_signal_self(a2, 0);
        if (a1 == -1)
            return (a2 < 0 || a2 > XC_NSIG) ? -XC_EINVAL : 0;   /* nobody else to signal */
        return -XC_ESRCH;
    case XC_SYS_tkill:
        if (a1 <= 0)
            return -XC_EINVAL;
        return a1 == XC_PID ? xc_signal_self(a2, -6) : -XC_ESRCH;
    case XC_SYS_tgkill:
        if (a1 <= 0 || a2 <= 0)
            return -XC_EINVAL;
        return (a1 == XC_PID && a2 == XC_PID) ? xc_signal_self(a3, -6) : -XC_ESRCH;

    default:
        break;
    }
    __xc_note_syscall(n);
    return -XC_ENOSYS;
}
