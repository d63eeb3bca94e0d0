#include <stdint.h>

static uint64_t go(uint8_t n, uint64_t a, uint64_t b)
{
    return n == 0 ? a : go(n - 1, b, a + b);
}

/* The n-th Fibonacci number mod 2^64 (fib(0) = 0), recursively. */
uint64_t fib(uint8_t n)
{
    return go(n, 0, 1);
}
