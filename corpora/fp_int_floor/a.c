#include <math.h>

/* x converted to int (truncation toward zero). */
int to_int(double x)
{
    return (int)x;
}
