#include <stdint.h>

/* floor(log2(x)), -1 for 0, by shifting. */
int ilog2(uint32_t x)
{
    int r = -1;

    while (x) {
        x >>= 1;
        r++;
    }
    return r;
}
