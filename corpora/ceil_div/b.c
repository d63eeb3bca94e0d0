#include <stdint.h>

/* Number of chunks of size d needed to hold n items, i.e. ceil(n / d):
   quotient, plus one for a partial chunk. */
unsigned ceil_div(uint8_t n, uint8_t d)
{
    return n / d + (n % d != 0);
}
