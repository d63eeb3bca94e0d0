#include <stdint.h>

/* The digital root of n, by the congruence modulo 9. */
uint32_t droot(uint32_t n)
{
    return n == 0 ? 0 : 1 + (n - 1) % 9;
}
