/* a + b + c, left to right. */
double sum3(double a, double b, double c)
{
    return a + b + c;
}
