/* Decimal parsing of 4 symbolic characters: a digit loop against one that multiplies by 10
   as (v << 3) + (v << 1) and stops at the first non-digit the same way. */
#include <klee/klee.h>

static int parse_ref(const char *s) {
    int v = 0;
    for (int i = 0; i < 4 && s[i] >= '0' && s[i] <= '9'; i++)
        v = v * 10 + (s[i] - '0');
    return v;
}
static int parse_opt(const char *s) {
    int v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned d = (unsigned char)s[i] - '0';
        if (d > 9)
            break;
        v = (v << 3) + (v << 1) + (int)d;
    }
    return v;
}

int main(void) {
    char s[4];
    klee_make_symbolic(s, sizeof s, "s");
    klee_assert(parse_ref(s) == parse_opt(s));
    return 0;
}
