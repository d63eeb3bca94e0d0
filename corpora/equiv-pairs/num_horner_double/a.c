/* 7x^5 - 3x^4 + 2x^2 + 11x - 5 by Horner's rule, in double. */
double poly(double x)
{
    return ((((7 * x - 3) * x + 0) * x + 2) * x + 11) * x - 5;
}
