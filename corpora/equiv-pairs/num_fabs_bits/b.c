#include <math.h>

/* |x| by copysign. */
double absd(double x)
{
    return copysign(x, 1.0);
}
