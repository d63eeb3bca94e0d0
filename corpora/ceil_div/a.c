#include <stdint.h>

/* Number of chunks of size d needed to hold n items, i.e. ceil(n / d).
   Written as 1 + (n - 1) / d, which avoids overflow in n + d - 1; an empty
   input needs no chunks and returns before dividing. */
unsigned ceil_div(uint8_t n, uint8_t d)
{
    if (n == 0)
        return 0;
    return 1 + (n - 1) / d;
}
