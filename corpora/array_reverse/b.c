#include <stdint.h>

#define MAX_ELEMS 4u

/* Reverse the first n elements of a in place (n capped at MAX_ELEMS).
   Swap each element of the first half with its mirror image. */
void reverse(int *a, unsigned n)
{
    if (n > MAX_ELEMS)
        n = MAX_ELEMS;
    for (unsigned k = 0; k < n / 2; k++) {
        int tmp = a[k];

        a[k] = a[n - 1 - k];
        a[n - 1 - k] = tmp;
    }
}
