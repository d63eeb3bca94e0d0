#include <stdint.h>

#define MAX_N 16u

/* n! modulo 2^32, with n capped at MAX_N. Iterative. */
uint32_t factorial(unsigned n)
{
    uint32_t result = 1;

    if (n > MAX_N)
        n = MAX_N;
    for (uint32_t i = 2; i <= n; i++)
        result *= i;
    return result;
}
