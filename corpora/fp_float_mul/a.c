#include <math.h>

/* x * y, through a double intermediate. */
float fmul(float x, float y)
{
    return (float)((double)x * (double)y);
}
