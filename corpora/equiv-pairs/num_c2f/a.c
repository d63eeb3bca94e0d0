/* Celsius to Fahrenheit. */
double c2f(double c)
{
    return c * 9 / 5 + 32;
}
