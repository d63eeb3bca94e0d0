#include <stdint.h>

/* gcd(a, b), Stein's binary algorithm. */
uint32_t gcd(uint32_t a, uint32_t b)
{
    int shift = 0;

    if (a == 0)
        return b;
    if (b == 0)
        return a;
    while (((a | b) & 1) == 0) {
        a >>= 1;
        b >>= 1;
        shift++;
    }
    while ((a & 1) == 0)
        a >>= 1;
    do {
        while ((b & 1) == 0)
            b >>= 1;
        if (a > b) {
            uint32_t t = a;

            a = b;
            b = t;
        }
        b -= a;
    } while (b != 0);
    return a << shift;
}
