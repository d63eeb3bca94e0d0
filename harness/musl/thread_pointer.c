/* The thread pointer (see include/pthread_arch.h), in a member of its own: a function
 * check links it, without thread.c's aliases, into each side that runs musl's code reading
 * the thread (load/libm.rs). Before __init_tp runs (always, in a whole program) it points
 * at this thread: its own address and the C locale, what that code reads of it (strerror's
 * locale). */
#include "pthread_impl.h"

static struct pthread xc_first_thread = {
	.self = &xc_first_thread,
	.prev = &xc_first_thread,
	.next = &xc_first_thread,
	.locale = &libc.global_locale,
};

hidden uintptr_t __xc_thread_pointer = (uintptr_t)&xc_first_thread;
