#include <math.h>

/* x * y, in float. */
float fmul(float x, float y)
{
    return x * y;
}
