#include <stdint.h>

/* Magnitude of x without a branch: mask is all ones when x is negative. */
uint32_t abs_value(int32_t x)
{
    uint32_t mask = (uint32_t)(x >> 31);   /* arithmetic shift: 0 or 0xffffffff */

    return ((uint32_t)x ^ mask) - mask;
}
