#include <math.h>

/* 1 + x + x^2/2 + x^3/6 + x^4/24, in Horner form, coefficients as exact quotients. */
double exp_series(double x)
{
    const double c3 = 1.0 / 6.0, c4 = 1.0 / 24.0;

    return 1.0 + x * (1.0 + x * (0.5 + x * (c3 + x * c4)));
}
