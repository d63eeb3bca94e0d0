/* xcheck's system-call model: the engine primitives it relies on, the entry points the engine
 * calls, the Linux x86_64 constants and layouts the model speaks, and the declarations shared
 * by the model's files (every .c under harness/posix/). Every constant is prefixed XC_ so
 * that a native test can include this header beside the host's own libc headers. */
#ifndef XCHECK_POSIX_H
#define XCHECK_POSIX_H

#include <stddef.h>
#include <stdint.h>

#include <klee/klee.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------
 * Engine primitives (the interpreter implements them; harness/posix/test/prims_native.c
 * implements them concretely for native tests).
 * ------------------------------------------------------------------------------------- */
void *malloc(size_t n);
void *calloc(size_t count, size_t size);
void *realloc(void *p, size_t n);
void free(void *p);
void *memcpy(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);

/* Records n bytes written by the running program to stream 1 (stdout) or 2 (stderr), or, as
 * stream 3, the record of the files it changed (xc_fs_publish, at its end). */
void __xc_output(int stream, const void *buf, size_t n);
/* The running program ends with this exit status. */
void __xc_exit(int status) __attribute__((noreturn));
/* The running program is killed by signal sig. */
void __xc_exit_signal(int sig) __attribute__((noreturn));
/* Reads the host file named by a concrete path: returns its size and sets *data to a fresh
 * concrete buffer, or returns -errno (-XC_EISDIR for a directory). */
long __xc_host_file(const char *path, char **data);
/* Reports that system call n is not modelled (the model then returns -XC_ENOSYS). */
void __xc_note_syscall(long n);
/* Reports that the program read a part of the environment the model pins (XC_PINNED_*):
 * the check's report states the value it was given. */
void __xc_note_pinned(long what);
#define XC_PINNED_CLOCK 1
#define XC_PINNED_IDENTITY 2
#define XC_PINNED_RANDOM 3
#define XC_PINNED_SYSTEM 4
#define XC_PINNED_CWD 5

/* ---------------------------------------------------------------------------------------
 * Entry points.
 * ------------------------------------------------------------------------------------- */
/* Parses KLEE-style environment options (argv[0] is the program name) and returns the
 * initial stack block: argc, argv..., NULL, envp NULL, auxv pairs, AT_NULL. */
long *__xc_env_init(int argc, char **argv);
/* Restores the environment to its state right after __xc_env_init and returns a fresh
 * block with fresh copies of the initial argument bytes. */
long *__xc_env_reset(void);
/* Every system call of both programs: returns the result or -errno. */
long __xc_syscall(long n, long a1, long a2, long a3, long a4, long a5, long a6);

/* ---------------------------------------------------------------------------------------
 * Linux x86_64 system-call numbers.
 * ------------------------------------------------------------------------------------- */
#define XC_SYS_read 0
#define XC_SYS_write 1
#define XC_SYS_open 2
#define XC_SYS_close 3
#define XC_SYS_stat 4
#define XC_SYS_fstat 5
#define XC_SYS_lstat 6
#define XC_SYS_poll 7
#define XC_SYS_lseek 8
#define XC_SYS_mmap 9
#define XC_SYS_mprotect 10
#define XC_SYS_munmap 11
#define XC_SYS_brk 12
#define XC_SYS_rt_sigaction 13
#define XC_SYS_rt_sigprocmask 14
#define XC_SYS_rt_sigreturn 15
#define XC_SYS_ioctl 16
#define XC_SYS_pread64 17
#define XC_SYS_pwrite64 18
#define XC_SYS_readv 19
#define XC_SYS_writev 20
#define XC_SYS_access 21
#define XC_SYS_pipe 22
#define XC_SYS_select 23
#define XC_SYS_sched_yield 24
#define XC_SYS_mremap 25
#define XC_SYS_msync 26
#define XC_SYS_madvise 28
#define XC_SYS_dup 32
#define XC_SYS_dup2 33
#define XC_SYS_pause 34
#define XC_SYS_nanosleep 35
#define XC_SYS_alarm 37
#define XC_SYS_getpid 39
#define XC_SYS_sendfile 40
#define XC_SYS_socket 41
#define XC_SYS_exit 60
#define XC_SYS_kill 62
#define XC_SYS_uname 63
#define XC_SYS_fcntl 72
#define XC_SYS_flock 73
#define XC_SYS_fsync 74
#define XC_SYS_fdatasync 75
#define XC_SYS_truncate 76
#define XC_SYS_ftruncate 77
#define XC_SYS_getdents 78
#define XC_SYS_getcwd 79
#define XC_SYS_chdir 80
#define XC_SYS_fchdir 81
#define XC_SYS_rename 82
#define XC_SYS_mkdir 83
#define XC_SYS_rmdir 84
#define XC_SYS_creat 85
#define XC_SYS_unlink 87
#define XC_SYS_readlink 89
#define XC_SYS_chmod 90
#define XC_SYS_fchmod 91
#define XC_SYS_chown 92
#define XC_SYS_fchown 93
#define XC_SYS_lchown 94
#define XC_SYS_umask 95
#define XC_SYS_gettimeofday 96
#define XC_SYS_getrlimit 97
#define XC_SYS_getrusage 98
#define XC_SYS_sysinfo 99
#define XC_SYS_times 100
#define XC_SYS_getuid 102
#define XC_SYS_getgid 104
#define XC_SYS_geteuid 107
#define XC_SYS_getegid 108
#define XC_SYS_setpgid 109
#define XC_SYS_getppid 110
#define XC_SYS_getpgrp 111
#define XC_SYS_getgroups 115
#define XC_SYS_getresuid 118
#define XC_SYS_getresgid 120
#define XC_SYS_getpgid 121
#define XC_SYS_getsid 124
#define XC_SYS_sigaltstack 131
#define XC_SYS_statfs 137
#define XC_SYS_fstatfs 138
#define XC_SYS_utime 132
#define XC_SYS_setrlimit 160
#define XC_SYS_sync 162
#define XC_SYS_arch_prctl 158
#define XC_SYS_gettid 186
#define XC_SYS_tkill 200
#define XC_SYS_time 201
#define XC_SYS_futex 202
#define XC_SYS_sched_getaffinity 204
#define XC_SYS_getdents64 217
#define XC_SYS_set_tid_address 218
#define XC_SYS_fadvise64 221
#define XC_SYS_clock_gettime 228
#define XC_SYS_clock_getres 229
#define XC_SYS_clock_nanosleep 230
#define XC_SYS_exit_group 231
#define XC_SYS_tgkill 234
#define XC_SYS_utimes 235
#define XC_SYS_inotify_init 253
#define XC_SYS_inotify_add_watch 254
#define XC_SYS_inotify_rm_watch 255
#define XC_SYS_openat 257
#define XC_SYS_mkdirat 258
#define XC_SYS_fchownat 260
#define XC_SYS_futimesat 261
#define XC_SYS_newfstatat 262
#define XC_SYS_unlinkat 263
#define XC_SYS_renameat 264
#define XC_SYS_readlinkat 267
#define XC_SYS_fchmodat 268
#define XC_SYS_faccessat 269
#define XC_SYS_pselect6 270
#define XC_SYS_ppoll 271
#define XC_SYS_set_robust_list 273
#define XC_SYS_utimensat 280
#define XC_SYS_dup3 292
#define XC_SYS_pipe2 293
#define XC_SYS_inotify_init1 294
#define XC_SYS_prlimit64 302
#define XC_SYS_syncfs 306
#define XC_SYS_renameat2 316
#define XC_SYS_getrandom 318
#define XC_SYS_copy_file_range 326
#define XC_SYS_statx 332
#define XC_SYS_rseq 334
#define XC_SYS_faccessat2 439

/* ---------------------------------------------------------------------------------------
 * errno values.
 * ------------------------------------------------------------------------------------- */
#define XC_EPERM 1
#define XC_ENOENT 2
#define XC_ESRCH 3
#define XC_EINTR 4
#define XC_EIO 5
#define XC_ENXIO 6
#define XC_EBADF 9
#define XC_EAGAIN 11
#define XC_ENOMEM 12
#define XC_EACCES 13
#define XC_EFAULT 14
#define XC_EBUSY 16
#define XC_EEXIST 17
#define XC_EXDEV 18
#define XC_ENODEV 19
#define XC_ENOTDIR 20
#define XC_EISDIR 21
#define XC_EINVAL 22
#define XC_ENFILE 23
#define XC_EMFILE 24
#define XC_ENOTTY 25
#define XC_EFBIG 27
#define XC_ENOSPC 28
#define XC_ESPIPE 29
#define XC_EPIPE 32
#define XC_ERANGE 34
#define XC_ENAMETOOLONG 36
#define XC_ENOSYS 38
#define XC_ENOTEMPTY 39

/* ---------------------------------------------------------------------------------------
 * open/fcntl/at flags, file types, seek, ioctl requests.
 * ------------------------------------------------------------------------------------- */
#define XC_O_ACCMODE 03
#define XC_O_RDONLY 00
#define XC_O_WRONLY 01
#define XC_O_RDWR 02
#define XC_O_CREAT 0100
#define XC_O_EXCL 0200
#define XC_O_NOCTTY 0400
#define XC_O_TRUNC 01000
#define XC_O_APPEND 02000
#define XC_O_NONBLOCK 04000
#define XC_O_ASYNC 020000
#define XC_O_DIRECT 040000
#define XC_O_LARGEFILE 0100000
#define XC_O_DIRECTORY 0200000
#define XC_O_NOFOLLOW 0400000
#define XC_O_NOATIME 01000000
#define XC_O_CLOEXEC 02000000

#define XC_AT_FDCWD (-100)
#define XC_AT_SYMLINK_NOFOLLOW 0x100
#define XC_AT_REMOVEDIR 0x200
#define XC_AT_EACCESS 0x200
#define XC_AT_EMPTY_PATH 0x1000

#define XC_S_IFMT 0170000
#define XC_S_IFDIR 0040000
#define XC_S_IFCHR 0020000
#define XC_S_IFREG 0100000
#define XC_S_IFIFO 0010000

#define XC_X_OK 1

/* d_type of a directory entry: the file type bits shifted down (the kernel's IFTODT). */
#define XC_DT_FIFO 1
#define XC_DT_DIR 4
#define XC_DT_REG 8

#define XC_SEEK_SET 0
#define XC_SEEK_CUR 1
#define XC_SEEK_END 2
#define XC_SEEK_DATA 3
#define XC_SEEK_HOLE 4

#define XC_POLLIN 0x001
#define XC_POLLPRI 0x002
#define XC_POLLOUT 0x004
#define XC_POLLERR 0x008
#define XC_POLLHUP 0x010
#define XC_POLLNVAL 0x020
#define XC_POLLRDNORM 0x040
#define XC_POLLRDBAND 0x080
#define XC_POLLWRNORM 0x100
#define XC_POLLWRBAND 0x200

#define XC_F_DUPFD 0
#define XC_F_GETFD 1
#define XC_F_SETFD 2
#define XC_F_GETFL 3
#define XC_F_SETFL 4
#define XC_F_GETLK 5
#define XC_F_SETLK 6
#define XC_F_SETLKW 7
#define XC_F_SETOWN 8
#define XC_F_GETOWN 9
#define XC_F_OFD_GETLK 36
#define XC_F_OFD_SETLK 37
#define XC_F_OFD_SETLKW 38
#define XC_F_DUPFD_CLOEXEC 1030
#define XC_F_GETPIPE_SZ 1032
#define XC_FD_CLOEXEC 1
#define XC_F_UNLCK 2

#define XC_TCGETS 0x5401
#define XC_TCSETS 0x5402
#define XC_TCSETSW 0x5403
#define XC_TCSETSF 0x5404
#define XC_TIOCGPGRP 0x540F
#define XC_TIOCSPGRP 0x5410
#define XC_TIOCGWINSZ 0x5413
#define XC_TIOCSWINSZ 0x5414
#define XC_FIONREAD 0x541B
#define XC_FIONBIO 0x5421
#define XC_FIONCLEX 0x5450
#define XC_FIOCLEX 0x5451

/* mmap */
#define XC_PROT_WRITE 0x2
#define XC_MAP_SHARED 0x01
#define XC_MAP_FIXED 0x10
#define XC_MAP_ANONYMOUS 0x20
#define XC_PAGE_SIZE 4096

/* signals and their disposition flags */
#define XC_SIGHUP 1
#define XC_SIGABRT 6
#define XC_SIGKILL 9
#define XC_SIGSEGV 11
#define XC_SIGPIPE 13
#define XC_SIGTERM 15
#define XC_SIGCHLD 17
#define XC_SIGCONT 18
#define XC_SIGSTOP 19
#define XC_SIGTSTP 20
#define XC_SIGTTIN 21
#define XC_SIGTTOU 22
#define XC_SIGURG 23
#define XC_SIGWINCH 28
#define XC_NSIG 64
#define XC_SA_SIGINFO 0x4
#define XC_SA_RESETHAND 0x80000000UL

/* auxiliary vector types */
#define XC_AT_NULL 0
#define XC_AT_PAGESZ 6
#define XC_AT_UID 11
#define XC_AT_EUID 12
#define XC_AT_GID 13
#define XC_AT_EGID 14
#define XC_AT_SECURE 23
#define XC_AT_RANDOM 25

/* resource limits */
#define XC_RLIMIT_STACK 3
#define XC_RLIMIT_NOFILE 7
#define XC_RLIM_INFINITY (~0UL)

/* arch_prctl */
#define XC_ARCH_SET_FS 0x1002
#define XC_ARCH_GET_FS 0x1003

/* futex */
#define XC_FUTEX_WAIT 0
#define XC_FUTEX_WAKE 1

/* ---------------------------------------------------------------------------------------
 * Kernel layouts (x86_64).
 * ------------------------------------------------------------------------------------- */
struct xc_stat {                /* struct stat: 144 bytes */
    uint64_t st_dev;            /* 0 */
    uint64_t st_ino;            /* 8 */
    uint64_t st_nlink;          /* 16 */
    uint32_t st_mode;           /* 24 */
    uint32_t st_uid;            /* 28 */
    uint32_t st_gid;            /* 32 */
    uint32_t pad0;              /* 36 */
    uint64_t st_rdev;           /* 40 */
    int64_t st_size;            /* 48 */
    int64_t st_blksize;         /* 56 */
    int64_t st_blocks;          /* 64 */
    int64_t st_atime_sec;       /* 72 */
    int64_t st_atime_nsec;
    int64_t st_mtime_sec;       /* 88 */
    int64_t st_mtime_nsec;
    int64_t st_ctime_sec;       /* 104 */
    int64_t st_ctime_nsec;
    int64_t unused[3];          /* 120 */
};
_Static_assert(sizeof(struct xc_stat) == 144, "struct stat is 144 bytes on x86_64");

struct xc_statfs {              /* struct statfs: 120 bytes */
    int64_t f_type;
    int64_t f_bsize;
    uint64_t f_blocks;
    uint64_t f_bfree;
    uint64_t f_bavail;
    uint64_t f_files;
    uint64_t f_ffree;
    int32_t f_fsid[2];
    int64_t f_namelen;
    int64_t f_frsize;
    int64_t f_flags;
    int64_t f_spare[4];
};
_Static_assert(sizeof(struct xc_statfs) == 120, "struct statfs is 120 bytes on x86_64");

struct xc_pollfd {              /* struct pollfd: 8 bytes */
    int32_t fd;
    int16_t events;
    int16_t revents;
};
_Static_assert(offsetof(struct xc_stat, st_mode) == 24, "st_mode at 24");
_Static_assert(offsetof(struct xc_stat, st_size) == 48, "st_size at 48");
_Static_assert(offsetof(struct xc_stat, st_blksize) == 56, "st_blksize at 56");
_Static_assert(offsetof(struct xc_stat, st_blocks) == 64, "st_blocks at 64");

struct xc_iovec {
    void *base;
    size_t len;
};

struct xc_timespec {
    int64_t sec;
    int64_t nsec;
};

/* ---------------------------------------------------------------------------------------
 * Model internals shared by every .c under harness/posix/ (not for programs).
 * ------------------------------------------------------------------------------------- */

/* The fixed time every clock reports: 2020-01-01T00:00:00Z. */
#define XC_EPOCH 1577836800L
#define XC_PID 42
#define XC_PPID 1
/* The value brk always answers: the break never moves, so musl's malloc falls back to mmap. */
#define XC_BRK 0x10000000L
/* Size of the descriptor table (and of the open-file-description pool). */
#define XC_NFD 64
/* Longest path the model looks at (PATH_MAX). */
#define XC_PATH_MAX 4096
/* Largest length a --sym-* option accepts. */
#define XC_MAX_SYM_LEN 4096

/* A file or directory of the model's file system. Every node stays on one list for the whole
 * exploration; __xc_env_reset puts each back to its initial state (deleting the ones the
 * program created by marking them absent, as they were at the start). */
struct xc_file {
    struct xc_file *next;
    const char *name;           /* current name (concrete, NUL-terminated) */
    const char *init_name;
    unsigned char *data;        /* current contents */
    size_t size;
    size_t cap;                 /* 0 while data is the pristine buffer (not owned) */
    unsigned char *init_data;   /* pristine contents (symbolic for --sym-files/--sym-stdin) */
    size_t init_size;
    uint32_t mode, init_mode;
    int exists, init_exists;
    uint64_t ino;
    /* The stat object of a --sym-files file or of symbolic stdin (KLEE 3.x's "A_data_stat",
     * "stdin_stat"), whose fields the model's stat starts from; NULL for other nodes. */
    const struct xc_stat *stat;
};

/* Kinds of open file description: XC_K_PIPE is an output stream (stdout, stderr, recorded
 * with __xc_output), XC_K_FIFO an end of a pipe the program made (pipe.c), XC_K_INOTIFY an
 * inotify instance (its watches, no events). */
enum { XC_K_FILE = 1, XC_K_DIR, XC_K_PIPE, XC_K_NULL, XC_K_ZERO, XC_K_RANDOM, XC_K_FIFO,
       XC_K_INOTIFY };

/* Devices a path may name (besides nodes). */
enum { XC_DEV_NONE = 0, XC_DEV_NULL, XC_DEV_ZERO, XC_DEV_RANDOM, XC_DEV_URANDOM, XC_DEV_TTY,
       XC_DEV_FD0, XC_DEV_FD1, XC_DEV_FD2 };

/* What a path resolved to. */
struct xc_path {
    struct xc_file *file;       /* an existing node, or NULL */
    int dev;                    /* XC_DEV_* */
    int concrete;               /* every byte of the path was concrete */
};

/* fs.c: nodes and path resolution */
extern struct xc_file xc_root;
void xc_fs_add(struct xc_file *f);
long xc_resolve(const char *path, struct xc_path *r);
long xc_parent_ok(const char *path);
struct xc_file *xc_fs_create(const char *path, uint32_t mode);
int xc_fs_own(struct xc_file *f, size_t need);
void xc_fs_truncate(struct xc_file *f, size_t len);
void xc_fs_reset(void);
void xc_fs_publish(void);
void xc_fs_stat(const struct xc_file *f, struct xc_stat *st);
int xc_fs_dir_busy(const struct xc_file *d);
uint64_t xc_fs_next_ino(void);
void xc_fs_set_sym_files(struct xc_file *files, unsigned n);
/* getdents64 (is64) or getdents on directory d: fills buf (count bytes) with the entries
 * from position *off on ("." and ".." first, then the entries in name order), advancing *off
 * and *last (the entry last returned, to resume after it when entries were removed). Returns
 * the bytes written, 0 at the end, -EINVAL when the next entry does not fit. */
long xc_fs_getdents(struct xc_file *d, long *off, struct xc_file **last, unsigned char *buf,
                    unsigned long count, int is64);
/* Whether the model knows every entry of directory d (the root and the directories the
 * program made; not a host directory, whose entries are unknown). */
int xc_fs_dir_known(const struct xc_file *d);

/* pipe.c: the program's own pipes */
struct xc_pipe;
/* A new pipe with one read end and one write end open, or NULL when none is free. */
struct xc_pipe *xc_pipe_new(void);
/* One more (or one less) open description of the read end and/or the write end; the pipe
 * is freed when neither end is open. */
void xc_pipe_hold(struct xc_pipe *p, int rd, int wr);
void xc_pipe_drop(struct xc_pipe *p, int rd, int wr);
/* Reads up to count bytes: 0 at end of file (no write end open); on an empty pipe with a
 * writer, -EAGAIN when !wait, else a model error (nothing else can ever write). */
long xc_pipe_read(struct xc_pipe *p, void *buf, size_t count, int wait);
/* Appends count bytes: -EPIPE (after SIGPIPE) with no read end open; when the bytes do not
 * fit, as many as fit or -EAGAIN when !wait, else a model error. */
long xc_pipe_write(struct xc_pipe *p, const void *buf, size_t count, int wait);
/* The poll bits of an end (rd: the read end, wr: the write end). */
int xc_pipe_ready(const struct xc_pipe *p, int rd, int wr);
/* Bytes waiting to be read; the pipe's inode number. */
size_t xc_pipe_avail(const struct xc_pipe *p);
uint64_t xc_pipe_ino(const struct xc_pipe *p);
void xc_pipe_reset(void);
/* Linux's default pipe capacity. */
#define XC_PIPE_CAP 65536

/* fd.c: descriptors and I/O */
void xc_fd_setup(struct xc_file *stdin_file);
/* mmap of fd: copies its bytes from off into dst (a private mapping). Returns 0 or -errno. */
long xc_fd_map(long fd, long off, unsigned char *dst, size_t len, int shared_write);
void xc_fd_reset(void);
long xc_fd_syscall(long n, long a1, long a2, long a3, long a4, long a5, long a6, int *handled);

/* sys.c: process, memory, time, signals */
void xc_sys_reset(void);
void xc_random_fill(unsigned char *buf, size_t n);
/* Delivers signal sig to the process itself (its handler, nothing when ignored, or the
 * default action: death for most). Returns 0 or -EINVAL. */
long xc_signal_self(long sig, int code);

/* env.c: options and failure injection */
/* Which call kinds can be made to fail by --max-fail (KLEE's five counters). */
enum { XC_FAIL_READ, XC_FAIL_WRITE, XC_FAIL_CLOSE, XC_FAIL_FTRUNCATE, XC_FAIL_GETCWD,
       XC_FAIL_KINDS };
/* Counts one call of that kind (at the point KLEE counts it)… */
void xc_fail_tick(int kind);
/* …and says whether this call fails (at the point KLEE checks). */
int xc_fail_now(int kind);
void xc_ensure_init(void);

/* util (fs.c) */
size_t xc_strlen(const char *s);
int xc_streq(const char *a, const char *b);
/* A fresh copy of a concrete path as the model names files ("./a//b/" is "a/b"). */
char *xc_norm_dup(const char *path);
/* Values that may be symbolic, made concrete by branching (each feasible value its own
 * path). xc_conc_below requires v < bound on the current path. */
unsigned long xc_conc_below(unsigned long v, unsigned long bound);
unsigned long xc_conc(unsigned long v);

#ifdef __cplusplus
}
#endif

/* inotify_add_watch: every event, and the flag that asks for a directory. */
#define XC_IN_ALL_EVENTS 0x00000fffUL
#define XC_IN_ONLYDIR 0x01000000UL

#endif
