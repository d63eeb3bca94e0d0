/* xcheck overlay for musl's arch/x86_64/atomic_arch.h: the primitives musl builds its
 * atomics on, written with compiler builtins instead of inline assembly. src/internal/
 * atomic.h derives every other operation (swap, fetch_add, and, or, inc, store, ...)
 * from a_cas, and the bit scans from plain C. */
#define a_cas a_cas
static inline int a_cas(volatile int *p, int t, int s)
{
	return __sync_val_compare_and_swap(p, t, s);
}

#define a_cas_p a_cas_p
static inline void *a_cas_p(volatile void *p, void *t, void *s)
{
	return __sync_val_compare_and_swap((void *volatile *)p, t, s);
}

#define a_barrier a_barrier
static inline void a_barrier(void)
{
	__sync_synchronize();
}

#define a_crash a_crash
static inline void a_crash(void)
{
	__builtin_trap();
}
