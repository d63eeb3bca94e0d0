/* abs: the branchy version against the sign-mask trick, in unsigned arithmetic. */
#include <klee/klee.h>

static unsigned abs_ref(int x) { return x < 0 ? 0u - (unsigned)x : (unsigned)x; }
static unsigned abs_opt(int x) {
    unsigned m = (unsigned)(x >> 31);
    return ((unsigned)x ^ m) - m;
}

int main(void) {
    int x = klee_int("x");
    klee_assert(abs_ref(x) == abs_opt(x));
    return 0;
}
