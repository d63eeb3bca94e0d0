/* mod vs modOpt with y != 0: the optimized version masks when y is a power of two. */
#include <klee/klee.h>

static unsigned mod(unsigned x, unsigned y) { return x % y; }
static unsigned mod_opt(unsigned x, unsigned y) {
    if ((y & (y - 1)) == 0)
        return x & (y - 1);
    return x % y;
}

int main(void) {
    unsigned x, y;
    klee_make_symbolic(&x, sizeof x, "x");
    klee_make_symbolic(&y, sizeof y, "y");
    klee_assume(y != 0);
    klee_assert(mod(x, y) == mod_opt(x, y));
    return 0;
}
