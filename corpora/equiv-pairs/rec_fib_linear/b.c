#include <stdint.h>

/* The n-th Fibonacci number mod 2^64 (fib(0) = 0), by a loop. */
uint64_t fib(uint8_t n)
{
    uint64_t a = 0, b = 1;

    for (unsigned i = 0; i < n; i++) {
        uint64_t t = a + b;

        a = b;
        b = t;
    }
    return a;
}
