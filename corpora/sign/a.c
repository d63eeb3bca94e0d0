#include <stdint.h>

/* -1, 0 or 1 according to the sign of x. */
int sign(int x)
{
    if (x > 0)
        return 1;
    if (x < 0)
        return -1;
    return 0;
}
