#include <stdint.h>

/* 7x^5 - 3x^4 + 2x^2 + 11x - 5, mod 2^32, by Horner's rule. */
uint32_t poly(uint32_t x)
{
    return ((((7 * x - 3) * x + 0) * x + 2) * x + 11) * x - 5;
}
