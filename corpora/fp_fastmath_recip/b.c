#include <math.h>

/* x divided by y, as a multiplication by the reciprocal. */
double ratio(double x, double y)
{
    return x * (1.0 / y);
}
