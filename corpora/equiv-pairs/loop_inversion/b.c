#include <stdint.h>

/* Sum of i*i for lo <= i < hi, the loop inverted: tested once, then at the bottom. */
uint32_t sumsq(uint32_t lo, uint32_t hi)
{
    uint32_t s = 0;
    uint32_t i = lo;

    if (i < hi) {
        do {
            s += i * i;
            ++i;
        } while (i < hi);
    }
    return s;
}
