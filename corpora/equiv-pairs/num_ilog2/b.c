#include <stdint.h>

/* floor(log2(x)), -1 for 0, by counting leading zeros. */
int ilog2(uint32_t x)
{
    return x ? 31 - __builtin_clz(x) : -1;
}
