#include <stdint.h>

#define MAX_ELEMS 4u

/* Reverse the first n elements of a in place (n capped at MAX_ELEMS).
   Two indices walking towards each other. */
void reverse(int *a, unsigned n)
{
    unsigned i, j;

    if (n > MAX_ELEMS)
        n = MAX_ELEMS;
    if (n < 2)
        return;
    for (i = 0, j = n - 1; i < j; i++, j--) {
        int tmp = a[i];

        a[i] = a[j];
        a[j] = tmp;
    }
}
