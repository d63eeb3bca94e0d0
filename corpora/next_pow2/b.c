#include <stdint.h>

/* Smallest power of two >= x (1 for x == 0); 0 when that does not fit in 32 bits.
   Smear the highest set bit of x - 1 into every lower position, then add one. */
uint32_t round_up_pow2(uint32_t x)
{
    if (x <= 1)
        return 1;
    x--;
    x |= x >> 1;
    x |= x >> 2;
    x |= x >> 4;
    x |= x >> 8;
    x |= x >> 16;
    return x + 1;   /* wraps to 0 for x > 2^31 */
}
