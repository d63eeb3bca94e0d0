#include <stdint.h>

/* a / b; 0 for b = 0. */
uint32_t quot(uint32_t a, uint32_t b)
{
    return b ? a / b : 0;
}
