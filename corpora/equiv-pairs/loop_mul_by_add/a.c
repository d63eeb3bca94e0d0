#include <stdint.h>

/* a * b by adding a, b times. */
uint32_t mul(uint32_t a, uint32_t b)
{
    uint32_t r = 0;

    while (b-- > 0)
        r += a;
    return r;
}
