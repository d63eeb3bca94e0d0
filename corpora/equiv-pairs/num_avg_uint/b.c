#include <stdint.h>

/* floor((a + b) / 2) in 64 bits. */
uint32_t avg(uint32_t a, uint32_t b)
{
    return (uint32_t)(((uint64_t)a + b) / 2);
}
