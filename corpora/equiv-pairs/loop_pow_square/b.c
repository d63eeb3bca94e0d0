#include <stdint.h>

/* x^e mod 2^32 by squaring. */
uint32_t ipow(uint32_t x, uint32_t e)
{
    uint32_t r = 1;

    while (e) {
        if (e & 1)
            r *= x;
        x *= x;
        e >>= 1;
    }
    return r;
}
