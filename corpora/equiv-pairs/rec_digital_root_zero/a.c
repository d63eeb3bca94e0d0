#include <stdint.h>

static uint32_t digits(uint32_t n)
{
    uint32_t s = 0;

    for (; n; n /= 10)
        s += n % 10;
    return s;
}

/* The digital root of n, by summing digits until one is left. */
uint32_t droot(uint32_t n)
{
    return n < 10 ? n : droot(digits(n));
}
