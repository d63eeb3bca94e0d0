#include <stdint.h>

/* 1 + 2 + ... + n, closed form (n(n+1) fits in 64 bits). */
uint64_t tri(uint32_t n)
{
    return (uint64_t)n * ((uint64_t)n + 1) / 2;
}
