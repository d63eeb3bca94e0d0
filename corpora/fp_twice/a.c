#include <math.h>

/* Twice x, by multiplication. */
double twice(double x)
{
    return x * 2.0;
}
