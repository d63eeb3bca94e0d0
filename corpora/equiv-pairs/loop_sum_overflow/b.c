#include <stdint.h>

/* Mean of n copies of v (0 for n = 0), summed in 64 bits. */
uint32_t avg(uint32_t n, uint32_t v)
{
    uint64_t s = 0;

    for (uint32_t i = 0; i < n; i++)
        s += v;
    return n ? (uint32_t)(s / n) : 0;
}
