#include <stdint.h>

/* Sum of i*i for i < n, by a loop. */
uint32_t sumsq(uint32_t n)
{
    uint32_t acc = 0;

    for (uint32_t i = 0; i < n; i++)
        acc += i * i;
    return acc;
}
