#include <stdint.h>

/* gcd(a, b), recursive Euclid. */
uint32_t gcd(uint32_t a, uint32_t b)
{
    return b == 0 ? a : gcd(b, a % b);
}
