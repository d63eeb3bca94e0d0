#include <stdint.h>

/* Larger of two ints without a branch. */
static int max2(int x, int y)
{
    return x ^ ((x ^ y) & -(x < y));
}

/* Largest of the four elements of a. Pairwise tournament of branch-free maxima. */
int max_element(const int a[4])
{
    return max2(max2(a[0], a[1]), max2(a[2], a[3]));
}
