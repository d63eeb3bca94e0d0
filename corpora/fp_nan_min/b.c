#include <math.h>

/* The smaller of x and y, ignoring a NaN operand, in one condition: y != y is true only for NaN. */
double nan_min(double x, double y)
{
    return (x < y || y != y) ? x : y;
}
