#include <stdint.h>

/* Greatest common divisor of two bytes, gcd(0, 0) = 0. Iterative Euclid. */
uint8_t gcd(uint8_t a, uint8_t b)
{
    while (b != 0) {
        uint8_t r = a % b;

        a = b;
        b = r;
    }
    return a;
}
