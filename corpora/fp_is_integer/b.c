#include <math.h>

/* 1 when x has no fractional part, by floor. */
int is_integer(double x)
{
    return floor(x) == x;
}
