#include <stdio.h>

/* Prints x and returns it with its lowest bit cleared. */
int report(int x)
{
    printf("x = %d\n", x);
    return x & ~1;
}
