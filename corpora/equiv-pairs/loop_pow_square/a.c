#include <stdint.h>

/* x^e mod 2^32, e multiplications. */
uint32_t ipow(uint32_t x, uint32_t e)
{
    uint32_t r = 1;

    for (uint32_t i = 0; i < e; i++)
        r *= x;
    return r;
}
