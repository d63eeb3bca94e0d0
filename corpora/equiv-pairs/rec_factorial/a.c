#include <stdint.h>

/* n! mod 2^32, recursively. */
uint32_t fact(uint8_t n)
{
    return n <= 1 ? 1 : n * fact(n - 1);
}
