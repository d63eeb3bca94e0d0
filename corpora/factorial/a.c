#include <stdint.h>

#define MAX_N 16u

static uint32_t fact(uint32_t n)
{
    if (n <= 1)
        return 1;
    return n * fact(n - 1);
}

/* n! modulo 2^32, with n capped at MAX_N. Recursive. */
uint32_t factorial(unsigned n)
{
    if (n > MAX_N)
        n = MAX_N;
    return fact(n);
}
