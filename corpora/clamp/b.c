#include <stdint.h>

static int max_int(int a, int b)
{
    return a ^ ((a ^ b) & -(a < b));
}

static int min_int(int a, int b)
{
    return b ^ ((a ^ b) & -(a < b));
}

/* x limited to the range [lo, hi], without branches. */
int clamp(int x, int lo, int hi)
{
    return min_int(max_int(x, lo), hi);
}
