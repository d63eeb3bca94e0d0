#include <stdint.h>

/* a * b mod m through a 64-bit product; 0 for m = 0. */
uint32_t mulmod(uint32_t a, uint32_t b, uint32_t m)
{
    return m ? (uint32_t)((uint64_t)a * b % m) : 0;
}
