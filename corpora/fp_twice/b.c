#include <math.h>

/* Twice x, by addition (what strength reduction makes of x * 2.0). */
double twice(double x)
{
    return x + x;
}
