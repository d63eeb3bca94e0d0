#include <math.h>

/* x divided by y. */
double ratio(double x, double y)
{
    return x / y;
}
