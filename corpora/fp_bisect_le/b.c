#include <math.h>

/* Lower bound of sqrt(c) on [0, 2] after six bisection steps, moving up on equality too. */
double bisect_sqrt(double c)
{
    double lo = 0.0, hi = 2.0;

    for (int i = 0; i < 6; i++) {
        double mid = (lo + hi) / 2.0;

        if (mid * mid <= c)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}
