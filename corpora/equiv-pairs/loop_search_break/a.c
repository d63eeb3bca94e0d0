#include <stdint.h>

/* The first i in [2, n) whose square is 1 modulo m, or -1; m < 2 gives -1. */
int32_t find(int32_t n, uint32_t m)
{
    if (m < 2)
        return -1;
    for (int32_t i = 2; i < n; i++) {
        if ((uint32_t)i * (uint32_t)i % m == 1)
            return i;
    }
    return -1;
}
