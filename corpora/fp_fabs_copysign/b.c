#include <math.h>

/* Magnitude of x, as x with the sign of +1. */
double magnitude(double x)
{
    return copysign(x, 1.0);
}
