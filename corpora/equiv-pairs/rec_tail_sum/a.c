#include <stdint.h>

static uint32_t go(uint32_t i, uint32_t n, uint32_t acc)
{
    if (i >= n)
        return acc;
    return go(i + 1, n, acc + i * i);
}

/* Sum of i*i for i < n, tail-recursively. */
uint32_t sumsq(uint32_t n)
{
    return go(0, n, 0);
}
