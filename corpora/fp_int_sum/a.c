#include <math.h>

/* n + m computed in double. */
double int_sum(int n, int m)
{
    return (double)n + (double)m;
}
