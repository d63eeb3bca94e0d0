#include <stdint.h>

/* x^e mod 2^32, recursively halving e. */
uint32_t ipow(uint32_t x, uint32_t e)
{
    uint32_t h;

    if (e == 0)
        return 1;
    h = ipow(x, e / 2);
    return e % 2 ? h * h * x : h * h;
}
