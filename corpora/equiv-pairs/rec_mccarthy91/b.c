#include <stdint.h>

/* McCarthy's 91 function, closed form. */
int32_t m91(int16_t n)
{
    return n > 100 ? n - 10 : 91;
}
