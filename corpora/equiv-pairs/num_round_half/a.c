#include <math.h>
#include <stdint.h>

/* x rounded to the nearest integer, halves away from zero (|x| < 2^62). */
int64_t round_nearest(double x)
{
    if (!(fabs(x) < 0x1p62))
        return 0;
    return llround(x);
}
