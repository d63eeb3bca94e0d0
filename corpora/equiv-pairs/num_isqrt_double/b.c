#include <math.h>
#include <stdint.h>

/* floor(sqrt(x)) through double: sqrt is correctly rounded, and no 32-bit x rounds up to a square. */
uint32_t isqrt(uint32_t x)
{
    return (uint32_t)sqrt((double)x);
}
