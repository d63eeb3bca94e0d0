#include <stdint.h>

/* a * b. */
uint32_t mul(uint32_t a, uint32_t b)
{
    return a * b;
}
