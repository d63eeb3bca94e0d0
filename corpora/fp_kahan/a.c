#include <math.h>

/* a + b + c + d with Kahan's compensation for the rounding error of each addition. */
double sum4(double a, double b, double c, double d)
{
    double sum = 0.0, comp = 0.0, y, t;

    y = a - comp; t = sum + y; comp = (t - sum) - y; sum = t;
    y = b - comp; t = sum + y; comp = (t - sum) - y; sum = t;
    y = c - comp; t = sum + y; comp = (t - sum) - y; sum = t;
    y = d - comp; t = sum + y; comp = (t - sum) - y; sum = t;
    return sum;
}
