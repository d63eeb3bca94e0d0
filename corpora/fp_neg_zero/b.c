#include <math.h>

/* The negation of x, by subtraction from zero. */
double negate(double x)
{
    return 0.0 - x;
}
