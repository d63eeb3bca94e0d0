/* strlen: an index loop against a pointer loop, on 8 symbolic bytes ending in NUL. */
#include <klee/klee.h>

static unsigned len_ref(const char *s) {
    unsigned n = 0;
    while (s[n])
        n++;
    return n;
}
static unsigned len_opt(const char *s) {
    const char *p = s;
    while (*p)
        p++;
    return (unsigned)(p - s);
}

int main(void) {
    char s[8];
    klee_make_symbolic(s, sizeof s, "s");
    klee_assume(s[7] == 0);
    klee_assert(len_ref(s) == len_opt(s));
    return 0;
}
