#include <stdint.h>
#include <string.h>

/* |x|: the sign bit cleared. */
double absd(double x)
{
    uint64_t u;

    memcpy(&u, &x, sizeof u);
    u &= ~(UINT64_C(1) << 63);
    memcpy(&x, &u, sizeof x);
    return x;
}
