#include <math.h>

/* a + b + c + d, left to right. */
double sum4(double a, double b, double c, double d)
{
    return a + b + c + d;
}
