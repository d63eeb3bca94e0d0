#include <stdio.h>

/* x right-aligned in five columns, then a bar. */
void pad(unsigned x)
{
    printf("%5u|\n", x);
}
