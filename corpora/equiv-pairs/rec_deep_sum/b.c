#include <stdint.h>

/* 0 + 1 + ... + n, by a loop. */
uint32_t sum(uint16_t n)
{
    uint32_t s = 0;

    for (uint32_t i = 1; i <= n; i++)
        s += i;
    return s;
}
