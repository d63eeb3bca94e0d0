#include <stdint.h>

/* Sum of the decimal digits of n, recursively. */
uint32_t dsum(uint32_t n)
{
    return n < 10 ? n : n % 10 + dsum(n / 10);
}
