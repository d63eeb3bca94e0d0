#include <math.h>

/* x converted to int, truncated explicitly first. */
int to_int(double x)
{
    return (int)trunc(x);
}
