#include <stdint.h>

/* Nonzero when x is a power of two: shift out the trailing zeros, then
   exactly one bit must remain. */
int is_power_of_two(uint32_t x)
{
    if (x == 0)
        return 0;
    while ((x & 1) == 0)
        x >>= 1;
    return x == 1;
}
