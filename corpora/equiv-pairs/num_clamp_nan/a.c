#include <math.h>

/* x clamped to [lo, hi] by fmax and fmin. */
double clamp(double x, double lo, double hi)
{
    return fmin(fmax(x, lo), hi);
}
