#include <math.h>

/* x rounded down, then converted to int. */
int to_int(double x)
{
    return (int)floor(x);
}
