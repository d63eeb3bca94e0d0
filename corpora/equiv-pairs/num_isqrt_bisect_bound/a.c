#include <stdint.h>

/* floor(sqrt(x)) by Newton's iteration from above. */
uint32_t isqrt(uint32_t x)
{
    uint64_t r = x, y;

    if (x < 2)
        return x;
    y = (r + 1) / 2;
    while (y < r) {
        r = y;
        y = (r + x / r) / 2;
    }
    return (uint32_t)r;
}
