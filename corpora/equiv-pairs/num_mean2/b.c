/* The mean of a and b, halved first. */
double mean(double a, double b)
{
    return a / 2 + b / 2;
}
