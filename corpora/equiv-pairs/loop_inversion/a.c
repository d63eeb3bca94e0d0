#include <stdint.h>

/* Sum of i*i for lo <= i < hi. */
uint32_t sumsq(uint32_t lo, uint32_t hi)
{
    uint32_t s = 0;
    uint32_t i = lo;

    while (i < hi) {
        s += i * i;
        i++;
    }
    return s;
}
