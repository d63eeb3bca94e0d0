#include <math.h>

/* x rounded toward minus infinity. */
double round_down(double x)
{
    return floor(x);
}
