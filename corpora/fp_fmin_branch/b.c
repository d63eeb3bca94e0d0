#include <math.h>

/* The smaller of x and y, by comparison. */
double smaller(double x, double y)
{
    return x < y ? x : y;
}
