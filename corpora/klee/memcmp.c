/* memcmp's sign: byte by byte against a version that compares four bytes at a time and
   forgets that its loaded words are little-endian (errors: where the first differing byte
   is not the most significant one that differs). */
#include <klee/klee.h>
#include <string.h>

static int sign(int v) { return (v > 0) - (v < 0); }
static int cmp_ref(const unsigned char *a, const unsigned char *b, unsigned n) {
    for (unsigned i = 0; i < n; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}
static int cmp_opt(const unsigned char *a, const unsigned char *b) {
    unsigned x, y;
    memcpy(&x, a, 4);
    memcpy(&y, b, 4);
    return x == y ? 0 : (x < y ? -1 : 1);
}

int main(void) {
    unsigned char a[4], b[4];
    klee_make_symbolic(a, sizeof a, "a");
    klee_make_symbolic(b, sizeof b, "b");
    klee_assert(sign(cmp_ref(a, b, 4)) == cmp_opt(a, b));
    return 0;
}
