/* The mean of a and b. */
double mean(double a, double b)
{
    return (a + b) / 2;
}
