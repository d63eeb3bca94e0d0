#include <stdint.h>

/* -1, 0 or 1 according to the sign of x, as a difference of two comparisons. */
int sign(int x)
{
    return (x > 0) - (x < 0);
}
