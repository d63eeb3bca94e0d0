#include <math.h>

/* Magnitude of x, by the textbook branch. */
double magnitude(double x)
{
    return x < 0 ? -x : x;
}
