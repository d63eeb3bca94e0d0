#include <stdint.h>

/* fib(n) for n <= 24, 0 above. */
uint32_t fib(uint32_t n)
{
    uint32_t a = 0, b = 1;

    if (n > 24)
        return 0;
    while (n--) {
        uint32_t t = a + b;

        a = b;
        b = t;
    }
    return a;
}
