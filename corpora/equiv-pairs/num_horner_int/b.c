#include <stdint.h>

/* 7x^5 - 3x^4 + 2x^2 + 11x - 5, mod 2^32, term by term. */
uint32_t poly(uint32_t x)
{
    uint32_t x2 = x * x, x4 = x2 * x2, x5 = x4 * x;

    return 7 * x5 - 3 * x4 + 2 * x2 + 11 * x - 5;
}
