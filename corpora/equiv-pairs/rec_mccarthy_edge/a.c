#include <stdint.h>

static int32_t m(int32_t n)
{
    return n > 100 ? n - 10 : m(m(n + 11));
}

/* McCarthy's 91 function. */
int32_t m91(int16_t n)
{
    return m(n);
}
