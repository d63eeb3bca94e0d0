#include <math.h>

/* The negation of x (flips the sign bit). */
double negate(double x)
{
    return -x;
}
