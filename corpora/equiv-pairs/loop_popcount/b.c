#include <stdint.h>

/* Set bits of x, clearing the lowest set bit each trip. */
int pop(uint32_t x)
{
    int c = 0;

    while (x) {
        x &= x - 1;
        c++;
    }
    return c;
}
