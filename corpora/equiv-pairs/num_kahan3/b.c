/* a + b + c by Kahan's compensated summation. */
double sum3(double a, double b, double c)
{
    double s = a, comp = 0, y, t;

    y = b - comp;
    t = s + y;
    comp = (t - s) - y;
    s = t;
    y = c - comp;
    t = s + y;
    return t;
}
