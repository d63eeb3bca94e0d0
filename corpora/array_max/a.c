#include <stdint.h>

/* Largest of the four elements of a. Linear scan. */
int max_element(const int a[4])
{
    int best = a[0];

    for (int i = 1; i < 4; i++) {
        if (a[i] > best)
            best = a[i];
    }
    return best;
}
