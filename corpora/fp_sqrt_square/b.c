#include <math.h>

/* |x|. */
double norm1(double x)
{
    return fabs(x);
}
