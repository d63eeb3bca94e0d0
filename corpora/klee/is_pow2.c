/* is-power-of-two: the x & (x - 1) trick forgets x = 0, which the counting loop rejects
   (one error, x = 0). */
#include <klee/klee.h>

static int pow2_ref(unsigned x) {
    int bits = 0;
    for (int i = 0; i < 32; i++)
        bits += (x >> i) & 1;
    return bits == 1;
}
static int pow2_opt(unsigned x) { return (x & (x - 1)) == 0; }

int main(void) {
    unsigned x;
    klee_make_symbolic(&x, sizeof x, "x");
    klee_assert(pow2_ref(x) == pow2_opt(x));
    return 0;
}
