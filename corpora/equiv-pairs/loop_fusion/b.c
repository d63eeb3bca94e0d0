#include <stdint.h>

/* The two loops fused. */
uint32_t stats(uint32_t n, uint32_t a)
{
    uint32_t s1 = 0, s2 = 0;

    for (uint32_t i = 0; i < n; i++) {
        uint32_t v = a + i;

        s1 += v;
        s2 += v * v;
    }
    return s1 * 31 + s2;
}
