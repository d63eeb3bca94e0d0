/* C replacements for musl's x86_64 assembly around the thread pointer, compiled into the
 * bitcode libc by scripts/build-musl.sh (with musl's internal include path).
 *
 * The thread pointer is the global __xc_thread_pointer (see include/pthread_arch.h).
 * __set_thread_area sets it; musl's generic __set_thread_area.c would fail with ENOSYS
 * on x86_64, where the kernel call is arch_prctl. */
#include "pthread_impl.h"
#include "syscall.h"

/* __xc_thread_pointer itself is defined in thread_pointer.c. */

int __set_thread_area(void *p)
{
	__xc_thread_pointer = (uintptr_t)p;
	return 0;
}

/* A detached thread unmaps its own stack and exits. The assembly version switches to a
 * shared stack first; there is no machine stack to leave here. */
void __unmapself(void *base, size_t size)
{
	__syscall(SYS_munmap, base, size);
	for (;;) __syscall(SYS_exit, 0);
}

/* The linker normally defines the bounds of .init_array and .fini_array. Bitcode has no
 * sections: the constructors of a program are in llvm.global_ctors, which the engine runs
 * itself. The four bounds are aliases of one object, so both arrays are empty.
 *
 * They live in this file because musl references them weakly, and a weak reference does
 * not pull a member out of an archive: __libc_start_main, their user, always pulls this
 * member through __init_tls -> __init_tp -> __set_thread_area. */
static void (*const xc_no_functions)(void) = 0;
extern hidden void (*const __init_array_start)(void) __attribute__((__alias__("xc_no_functions")));
extern hidden void (*const __init_array_end)(void) __attribute__((__alias__("xc_no_functions")));
extern hidden void (*const __fini_array_start)(void) __attribute__((__alias__("xc_no_functions")));
extern hidden void (*const __fini_array_end)(void) __attribute__((__alias__("xc_no_functions")));
