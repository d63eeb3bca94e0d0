/* popcount_down: popcount's loop summing from bit 31 down to bit 0 against SWAR: the same
 * sum in the other order, so that the solver gets the chain the program computed whichever
 * way it runs (issue 11's query-shape regression). */
#include <klee/klee.h>

static unsigned pop_ref(unsigned x) {
    unsigned c = 0;
    for (int i = 31; i >= 0; i--)
        c += (x >> i) & 1;
    return c;
}
static unsigned pop_opt(unsigned x) {
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0f0f0f0fu;
    return (x * 0x01010101u) >> 24;
}

int main(void) {
    unsigned x;
    klee_make_symbolic(&x, sizeof x, "x");
    klee_assert(pop_ref(x) == pop_opt(x));
    return 0;
}
