/* Saturating 8-bit addition: the widened reference against the branch-free carry mask. */
#include <klee/klee.h>

static unsigned char sat_ref(unsigned char a, unsigned char b) {
    unsigned s = (unsigned)a + b;
    return s > 255 ? 255 : (unsigned char)s;
}
static unsigned char sat_opt(unsigned char a, unsigned char b) {
    unsigned char s = (unsigned char)(a + b);
    return s | (unsigned char)-(s < a);
}

int main(void) {
    unsigned char a, b;
    klee_make_symbolic(&a, 1, "a");
    klee_make_symbolic(&b, 1, "b");
    klee_assert(sat_ref(a, b) == sat_opt(a, b));
    return 0;
}
