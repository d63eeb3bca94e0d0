#include <stdint.h>

/* McCarthy's 91 function with the comparison one off: n >= 100 returns n - 10. */
int32_t m91(int16_t n)
{
    return n >= 100 ? n - 10 : 91;
}
