#include <math.h>

/* n + m computed in 64-bit integers, then converted. */
double int_sum(int n, int m)
{
    return (double)((long)n + m);
}
