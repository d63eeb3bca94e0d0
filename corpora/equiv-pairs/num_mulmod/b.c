#include <stdint.h>

/* a * b mod m by doubling and adding, never above 2m; 0 for m = 0. */
uint32_t mulmod(uint32_t a, uint32_t b, uint32_t m)
{
    uint64_t r = 0, x;

    if (m == 0)
        return 0;
    x = a % m;
    while (b) {
        if (b & 1)
            r = (r + x) % m;
        x = (x * 2) % m;
        b >>= 1;
    }
    return (uint32_t)r;
}
