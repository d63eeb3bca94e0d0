#include <stdint.h>

/* 0 + 1 + ... + n, recursively (n frames). */
uint32_t sum(uint16_t n)
{
    if (n == 0)
        return 0;
    return n + sum(n - 1);
}
