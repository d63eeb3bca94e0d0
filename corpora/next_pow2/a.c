#include <stdint.h>

/* Smallest power of two >= x (1 for x == 0); 0 when that does not fit in 32 bits. */
uint32_t round_up_pow2(uint32_t x)
{
    uint32_t p = 1;

    if (x > 0x80000000u)
        return 0;
    while (p < x)
        p <<= 1;
    return p;
}
