/* a + b. */
double sum2(double a, double b)
{
    return a + b;
}
