/* C replacement for musl's src/thread/x86_64/syscall_cp.s: a system call that is a
 * thread-cancellation point. The assembly marks the window between the cancellation check
 * and the syscall instruction with __cp_begin/__cp_end, so that the cancellation signal
 * handler can redirect a thread blocked inside it to __cp_cancel. Under the engine no
 * signal interrupts a system call, so the labels only need to exist. */
#include "pthread_impl.h"
#include "syscall.h"

hidden long __cancel(void);

hidden const char __cp_begin[1], __cp_end[1], __cp_cancel[1];

hidden long __syscall_cp_asm(volatile void *cancel, syscall_arg_t nr,
                             syscall_arg_t u, syscall_arg_t v, syscall_arg_t w,
                             syscall_arg_t x, syscall_arg_t y, syscall_arg_t z)
{
	if (*(volatile int *)cancel) return __cancel();
	return __syscall(nr, u, v, w, x, y, z);
}
