/* mod vs an optimized mod: x % 2^k is x & (2^k - 1) for unsigned x and k < 32. */
#include <klee/klee.h>

static unsigned mod(unsigned x, unsigned y) { return x % y; }
static unsigned mod_opt(unsigned x, unsigned k) { return x & ((1u << k) - 1); }

int main(void) {
    unsigned x, k;
    klee_make_symbolic(&x, sizeof x, "x");
    klee_make_symbolic(&k, sizeof k, "k");
    klee_assume(k < 32);
    klee_assert(mod(x, 1u << k) == mod_opt(x, k));
    return 0;
}
