#include <math.h>

/* (a + b) - b, simplified as if floating point were associative. */
double cancel(double a, double b)
{
    return a;
}
