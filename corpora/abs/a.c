#include <stdint.h>

/* Magnitude of x. Computed in unsigned arithmetic so that INT32_MIN is fine. */
uint32_t abs_value(int32_t x)
{
    if (x < 0)
        return 0u - (uint32_t)x;
    return (uint32_t)x;
}
