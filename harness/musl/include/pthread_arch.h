/* xcheck overlay for musl's arch/x86_64/pthread_arch.h. The thread pointer (%fs:0 on
 * x86_64) is an ordinary global, set by the C __set_thread_area in harness/musl/
 * thread.c. Programs are single-threaded under the engine, so one global suffices.
 * The layout stays x86_64's: the pointer points at struct pthread, TLS lies below it. */
extern __attribute__((__visibility__("hidden"))) uintptr_t __xc_thread_pointer;

static inline uintptr_t __get_tp(void)
{
	return __xc_thread_pointer;
}

#define MC_PC gregs[REG_RIP]
