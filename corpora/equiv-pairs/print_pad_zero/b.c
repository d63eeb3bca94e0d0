#include <stdio.h>

/* x zero-padded in five columns, then a bar. */
void pad(unsigned x)
{
    printf("%05u|\n", x);
}
