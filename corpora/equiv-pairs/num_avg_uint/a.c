#include <stdint.h>

/* floor((a + b) / 2) without a wider type. */
uint32_t avg(uint32_t a, uint32_t b)
{
    return (a & b) + ((a ^ b) >> 1);
}
