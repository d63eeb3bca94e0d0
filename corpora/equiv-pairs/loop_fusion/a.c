#include <stdint.h>

/* Sum and sum of squares of a + i (i < n) in two loops, combined. */
uint32_t stats(uint32_t n, uint32_t a)
{
    uint32_t s1 = 0, s2 = 0;

    for (uint32_t i = 0; i < n; i++)
        s1 += a + i;
    for (uint32_t i = 0; i < n; i++)
        s2 += (a + i) * (a + i);
    return s1 * 31 + s2;
}
