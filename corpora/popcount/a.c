#include <stdint.h>

/* Number of set bits, clearing the lowest set bit each round (Kernighan). */
unsigned popcount(uint32_t x)
{
    unsigned count = 0;

    while (x != 0) {
        x &= x - 1;
        count++;
    }
    return count;
}
