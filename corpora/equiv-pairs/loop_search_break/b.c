#include <stdint.h>

/* The same search with a flag instead of an early return. */
int32_t find(int32_t n, uint32_t m)
{
    int32_t found = -1;
    int32_t i = 2;

    while (m >= 2 && found < 0 && i < n) {
        uint32_t u = (uint32_t)i;

        if (u * u % m == 1)
            found = i;
        i++;
    }
    return found;
}
