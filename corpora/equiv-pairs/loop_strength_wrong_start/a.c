#include <stdint.h>

/* Sum of c, c+5, ... (n terms), but the running term starts one step late. */
uint32_t f(uint32_t n, uint32_t c)
{
    uint32_t i = 0, j = c + 5, x = 0;

    while (i < n) {
        x += j;
        j += 5;
        i++;
    }
    return x;
}
