#include <math.h>
#include <stdint.h>

/* x rounded by adding one half and truncating (|x| < 2^62). */
int64_t round_nearest(double x)
{
    if (!(fabs(x) < 0x1p62))
        return 0;
    return (int64_t)floor(x + 0.5);
}
