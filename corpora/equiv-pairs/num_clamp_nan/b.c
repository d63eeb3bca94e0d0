/* x clamped to [lo, hi] by comparisons. */
double clamp(double x, double lo, double hi)
{
    if (x < lo)
        return lo;
    if (x > hi)
        return hi;
    return x;
}
