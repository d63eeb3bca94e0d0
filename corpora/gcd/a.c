#include <stdint.h>

/* Greatest common divisor of two bytes, gcd(0, 0) = 0. Recursive Euclid. */
uint8_t gcd(uint8_t a, uint8_t b)
{
    if (b == 0)
        return a;
    return gcd(b, a % b);
}
