#include <math.h>

/* Length of (x, y). */
double hypot2(double x, double y)
{
    return sqrt(x * x + y * y);
}
