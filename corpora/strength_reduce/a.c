/* The regression-verification literature's strength reduction, unbounded: the sum of the
   first n terms of c, c + 5, c + 10, … kept in a running value. */
unsigned strength_reduce(unsigned n, unsigned c)
{
    unsigned i = 0, term = c, sum = 0;

    while (i < n) {
        sum += term;
        term += 5;
        i++;
    }
    return sum;
}
