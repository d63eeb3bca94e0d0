#include <math.h>

/* Length of (x, y), the squares summed the other way round. */
double hypot2(double x, double y)
{
    return sqrt(y * y + x * x);
}
