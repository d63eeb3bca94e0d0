#include <stdint.h>

/* x reduced modulo the table size 2^bits (bits taken modulo 32). */
unsigned mod(unsigned x, unsigned bits)
{
    unsigned size = 1u << (bits & 31);

    return x % size;
}
