#include <math.h>

/* x * y + z, through a double intermediate. */
float madd(float x, float y, float z)
{
    return (float)((double)x * (double)y + (double)z);
}
