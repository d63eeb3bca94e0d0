/* C conveniences of the KLEE interface, over the engine's primitives. */
#include <klee/klee.h>

int klee_int(const char *name) {
    int x;
    klee_make_symbolic(&x, sizeof x, name);
    return x;
}

int klee_range(int begin, int end, const char *name) {
    if (begin >= end)
        klee_report_error(__FILE__, __LINE__, "invalid range", "user.err");
    if (begin + 1 == end)
        return begin;
    int x;
    klee_make_symbolic(&x, sizeof x, name);
    klee_assume((unsigned)x - (unsigned)begin < (unsigned)end - (unsigned)begin);
    return x;
}

void klee_warning(const char *message) { (void)message; }

void klee_warning_once(const char *message) { (void)message; }
