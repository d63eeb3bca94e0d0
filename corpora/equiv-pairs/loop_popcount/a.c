#include <stdint.h>

/* Set bits of x, one shift per bit position. */
int pop(uint32_t x)
{
    int c = 0;

    for (int i = 0; i < 32; i++) {
        c += x & 1;
        x >>= 1;
    }
    return c;
}
