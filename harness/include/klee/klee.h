/* xcheck's KLEE-compatible interface: the engine primitives and their C conveniences.
 * Harnesses written for KLEE include <klee/klee.h> and run unchanged under `xcheck run`. */
#ifndef XCHECK_KLEE_H
#define XCHECK_KLEE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Engine primitives (handled by the interpreter itself). */
void klee_make_symbolic(void *addr, size_t nbytes, const char *name);
void klee_assume(uintptr_t condition);
void klee_report_error(const char *file, int line, const char *message, const char *suffix)
    __attribute__((noreturn));
void klee_silent_exit(int status) __attribute__((noreturn));
void klee_abort(void) __attribute__((noreturn));
void klee_prefer_cex(void *object, uintptr_t condition);
int klee_is_symbolic(uintptr_t n);
void klee_print_expr(const char *msg, ...);
uintptr_t klee_choose(uintptr_t n);

/* Conveniences written in C over the primitives (harness/klee.c). */
int klee_int(const char *name);
int klee_range(int begin, int end, const char *name);
void klee_warning(const char *message);
void klee_warning_once(const char *message);

#define klee_assert(expr)                                                       \
    ((expr) ? (void)0 : __assert_fail(#expr, __FILE__, __LINE__, __func__))
void __assert_fail(const char *assertion, const char *file, unsigned int line,
                   const char *function) __attribute__((noreturn));

#ifdef __cplusplus
}
#endif

#endif
