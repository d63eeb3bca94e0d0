#include <stdint.h>

/* Mean of n copies of v (0 for n = 0), summed in 32 bits. */
uint32_t avg(uint32_t n, uint32_t v)
{
    uint32_t s = 0;

    for (uint32_t i = 0; i < n; i++)
        s += v;
    return n ? s / n : 0;
}
