#include <stdint.h>

/* Smaller of two ints without a branch: -(a < b) is all ones exactly when a wins. */
int min_int(int a, int b)
{
    return b ^ ((a ^ b) & -(a < b));
}
