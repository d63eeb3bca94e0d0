/* xcheck overlay for musl's arch/x86_64/syscall_arch.h, first on the include path when
 * scripts/build-musl.sh compiles musl to bitcode. Every system call becomes one call of
 * __xc_syscall, which the engine's POSIX model implements (harness/posix/); the return
 * value follows the kernel's convention (-errno on failure). No inline assembly is left.
 * VDSO_USEFUL stays undefined, so clock_gettime is an ordinary system call. */
#define __SYSCALL_LL_E(x) (x)
#define __SYSCALL_LL_O(x) (x)

long __xc_syscall(long n, long a, long b, long c, long d, long e, long f);

static __inline long __syscall0(long n)
{
	return __xc_syscall(n, 0, 0, 0, 0, 0, 0);
}

static __inline long __syscall1(long n, long a1)
{
	return __xc_syscall(n, a1, 0, 0, 0, 0, 0);
}

static __inline long __syscall2(long n, long a1, long a2)
{
	return __xc_syscall(n, a1, a2, 0, 0, 0, 0);
}

static __inline long __syscall3(long n, long a1, long a2, long a3)
{
	return __xc_syscall(n, a1, a2, a3, 0, 0, 0);
}

static __inline long __syscall4(long n, long a1, long a2, long a3, long a4)
{
	return __xc_syscall(n, a1, a2, a3, a4, 0, 0);
}

static __inline long __syscall5(long n, long a1, long a2, long a3, long a4, long a5)
{
	return __xc_syscall(n, a1, a2, a3, a4, a5, 0);
}

static __inline long __syscall6(long n, long a1, long a2, long a3, long a4, long a5, long a6)
{
	return __xc_syscall(n, a1, a2, a3, a4, a5, a6);
}

#define IPC_64 0
