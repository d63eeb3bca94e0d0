#include <stdint.h>

/* Folds (i ^ k) * 3 + 1 over i < n. */
uint32_t mix(uint32_t n, uint32_t k)
{
    uint32_t h = 0;

    for (uint32_t i = 0; i < n; i++)
        h += (i ^ k) * 3 + 1;
    return h;
}
