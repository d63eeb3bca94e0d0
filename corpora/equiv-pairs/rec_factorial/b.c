#include <stdint.h>

/* n! mod 2^32, by a loop. */
uint32_t fact(uint8_t n)
{
    uint32_t r = 1;

    for (uint32_t i = 2; i <= n; i++)
        r *= i;
    return r;
}
