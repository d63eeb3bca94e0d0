#include <stdint.h>

/* Sum of c, c+5, c+10, ... (n terms), the step kept in a variable. */
uint32_t f(uint32_t n, uint32_t c)
{
    uint32_t i = 0, j = c, x = 0;

    while (i < n) {
        x += j;
        j += 5;
        i++;
    }
    return x;
}
