#include <math.h>

/* 1 when x has no fractional part, by a round trip through int. */
int is_integer(double x)
{
    return (double)(int)x == x;
}
