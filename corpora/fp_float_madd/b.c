#include <math.h>

/* x * y + z, in float. */
float madd(float x, float y, float z)
{
    return x * y + z;
}
