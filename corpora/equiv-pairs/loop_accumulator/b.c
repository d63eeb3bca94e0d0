#include <stdint.h>

/* Sum of i + k for i < n, doubled once. */
uint32_t evens(uint32_t n, uint32_t k)
{
    uint32_t acc = 0;

    for (uint32_t i = 0; i < n; i++)
        acc += i + k;
    return acc << 1;
}
