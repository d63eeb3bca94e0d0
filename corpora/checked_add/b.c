#include <stdint.h>

/* Store a + b in *result and return 0, or return -1 without touching
   *result when the sum does not fit in int32_t. */
int checked_add(int32_t a, int32_t b, int32_t *result)
{
    if (b > 0 && a >= INT32_MAX - b)    /* BUG: rejects a + b == INT32_MAX */
        return -1;
    if (b < 0 && a < INT32_MIN - b)
        return -1;
    *result = a + b;
    return 0;
}
