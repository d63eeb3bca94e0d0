#include <stdint.h>

/* Sum of c, c+5, c+10, ... (n terms), each term recomputed from i. */
uint32_t f(uint32_t n, uint32_t c)
{
    uint32_t i = 0, j = 0, x = 0;

    while (i < n) {
        j = 5 * i + c;
        x += j;
        i++;
    }
    return x;
}
