#include <stdint.h>

/* Smaller of two ints. */
int min_int(int a, int b)
{
    return a < b ? a : b;
}
