#include <stdint.h>

/* Nonzero when x is a power of two: clearing the lowest set bit leaves zero. */
int is_power_of_two(uint32_t x)
{
    return x != 0 && (x & (x - 1)) == 0;
}
