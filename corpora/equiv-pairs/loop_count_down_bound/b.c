#include <stdint.h>

/* Sum of 3i + 1 for i < n, counting down, one trip short. */
uint64_t wsum(uint32_t n)
{
    uint64_t s = 0;

    for (uint32_t i = n; i > 1; i--)
        s += 3 * (uint64_t)(i - 1) + 1;
    return s;
}
