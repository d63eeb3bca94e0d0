#include <stdint.h>

/* floor((a + b) / 2), the sum in 32 bits (it wraps). */
uint32_t avg(uint32_t a, uint32_t b)
{
    return (a + b) / 2;
}
