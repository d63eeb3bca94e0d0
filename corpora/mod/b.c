#include <stdint.h>

/* x reduced modulo the table size 2^bits (bits taken modulo 32). The size is
   a power of two, so the remainder is just the low bits: mask instead of divide. */
unsigned modOpt(unsigned x, unsigned bits)
{
    unsigned size = 1u << (bits & 31);

    return x & (size - 1);
}
