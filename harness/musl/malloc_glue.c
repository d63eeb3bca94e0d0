/* The engine supplies the allocator: scripts/build-musl.sh leaves musl's malloc out, so
 * malloc, calloc, realloc, free, aligned_alloc, posix_memalign, memalign and
 * malloc_usable_size stay undefined in the bitcode libc. Some parts of musl (atexit,
 * locales, time zones, posix_spawn file actions, dlerror, aio, sem_open) call the
 * allocator by internal names, which in musl keep reaching libc's own malloc when a
 * program replaces malloc. Here they forward to the engine's functions. */
#include <stdlib.h>

void *__libc_malloc(size_t n)
{
	return malloc(n);
}

void *__libc_calloc(size_t m, size_t n)
{
	return calloc(m, n);
}

void *__libc_realloc(void *p, size_t n)
{
	return realloc(p, n);
}

void __libc_free(void *p)
{
	free(p);
}
