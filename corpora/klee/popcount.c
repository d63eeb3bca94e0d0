/* popcount: a 32-iteration loop of c += (x >> i) & 1 against SWAR. */
#include <klee/klee.h>

static unsigned pop_ref(unsigned x) {
    unsigned c = 0;
    for (int i = 0; i < 32; i++)
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
