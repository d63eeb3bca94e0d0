/* The same sum with each term computed from its index. */
unsigned strength_reduce(unsigned n, unsigned c)
{
    unsigned i = 0, sum = 0;

    while (i < n) {
        unsigned term = 5 * i + c;
        sum += term;
        i++;
    }
    return sum;
}
