/* KLEE's tutorial: mod against modOpt, which masks when y is a power of two ((y & -y) == y),
   as issue 32 measured it. -DASSUME adds klee_assume(y != 0); without it both sides divide
   by zero at y == 0. Run by scripts/bench_klee.py with KLEE and with `xcheck run`. */
#include <klee/klee.h>

unsigned mod(unsigned x, unsigned y) { return x % y; }
unsigned modOpt(unsigned x, unsigned y) { return ((y & -y) == y) ? x & (y - 1) : x % y; }

int main(void) {
    unsigned x, y;
    klee_make_symbolic(&x, sizeof x, "x");
    klee_make_symbolic(&y, sizeof y, "y");
#ifdef ASSUME
    klee_assume(y != 0);
#endif
    klee_assert(mod(x, y) == modOpt(x, y));
    return 0;
}
