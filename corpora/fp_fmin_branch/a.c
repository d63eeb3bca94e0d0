#include <math.h>

/* The smaller of x and y; a NaN operand is ignored. */
double smaller(double x, double y)
{
    return fmin(x, y);
}
