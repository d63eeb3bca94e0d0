#include <stdint.h>

/* a / b by subtracting b while it fits; 0 for b = 0. */
uint32_t quot(uint32_t a, uint32_t b)
{
    uint32_t q = 0;

    if (b == 0)
        return 0;
    while (a >= b) {
        a -= b;
        q++;
    }
    return q;
}
