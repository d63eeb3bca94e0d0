#include <stdint.h>

/* Sum of the decimal digits of n, by a loop. */
uint32_t dsum(uint32_t n)
{
    uint32_t s = 0;

    do {
        s += n % 10;
        n /= 10;
    } while (n);
    return s;
}
