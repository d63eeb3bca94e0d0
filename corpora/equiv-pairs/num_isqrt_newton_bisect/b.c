#include <stdint.h>

/* floor(sqrt(x)) by bisection: the largest r < 65536 with r*r <= x. */
uint32_t isqrt(uint32_t x)
{
    uint32_t lo = 0, hi = 65536;

    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;

        if ((uint64_t)mid * mid <= x)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}
