#include <stdint.h>

/* Sum of 3i + 1 for 0 <= i < n, counting up. */
uint64_t wsum(uint32_t n)
{
    uint64_t s = 0;

    for (uint32_t i = 0; i < n; i++)
        s += 3 * (uint64_t)i + 1;
    return s;
}
