#include <stdint.h>

#define MAX_TERMS 16u

/* Sum of the integers 1..n, n capped at MAX_TERMS: the straightforward loop. */
unsigned sum_to_n(unsigned n)
{
    unsigned total = 0;

    if (n > MAX_TERMS)
        n = MAX_TERMS;
    for (unsigned i = 1; i <= n; i++)
        total += i;
    return total;
}
