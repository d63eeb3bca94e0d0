#include <stdint.h>

/* a / b rounded to nearest, halves up, from the doubled fraction; 0 for b = 0. */
uint32_t rdiv(uint32_t a, uint32_t b)
{
    return b ? (uint32_t)((2 * (uint64_t)a + b) / (2 * (uint64_t)b)) : 0;
}
