#include <math.h>

/* The smaller of x and y, ignoring a NaN operand (the fmin contract), with explicit tests. */
double nan_min(double x, double y)
{
    if (isnan(x))
        return y;
    if (isnan(y))
        return x;
    return x < y ? x : y;
}
