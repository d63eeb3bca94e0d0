/* a + b by Kahan's summation: the first compensation is 0, or NaN when a is infinite. */
double sum2(double a, double b)
{
    double s = 0, comp = 0, y, t;

    y = a - comp;
    t = s + y;
    comp = (t - s) - y;
    s = t;
    y = b - comp;
    t = s + y;
    return t;
}
