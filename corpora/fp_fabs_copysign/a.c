#include <math.h>

/* Magnitude of x. */
double magnitude(double x)
{
    return fabs(x);
}
