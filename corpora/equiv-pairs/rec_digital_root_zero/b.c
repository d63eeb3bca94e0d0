#include <stdint.h>

/* The digital root by n mod 9 (9 for multiples of 9): 0 is a multiple of 9 too. */
uint32_t droot(uint32_t n)
{
    return n % 9 == 0 ? 9 : n % 9;
}
