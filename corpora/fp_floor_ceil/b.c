#include <math.h>

/* x rounded toward minus infinity, through the ceiling of -x. */
double round_down(double x)
{
    return -ceil(-x);
}
