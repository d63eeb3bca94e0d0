#include <math.h>

/* 1 + 0.5 x + 0.25 x^2 + 0.1 x^3, in Horner form. */
double cubic(double x)
{
    return 1.0 + x * (0.5 + x * (0.25 + x * 0.1));
}
