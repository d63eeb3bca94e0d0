#include <math.h>

/* 1 + x + x^2/2 + x^3/6 + x^4/24, in Horner form, coefficients as literals. */
double exp_series(double x)
{
    return 1.0 + x * (1.0 + x * (0.5 + x * (0.16666666666666666 + x * 0.041666666666666664)));
}
