#include <stdint.h>

/* 1 + 2 + ... + n. */
uint64_t tri(uint32_t n)
{
    uint64_t s = 0;

    for (uint32_t i = 1; i <= n && i != 0; i++)
        s += i;
    return s;
}
