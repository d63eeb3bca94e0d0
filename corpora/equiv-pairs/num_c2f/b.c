/* Celsius to Fahrenheit with the factor folded. */
double c2f(double c)
{
    return c * 1.8 + 32;
}
