#include <stdio.h>

/* x in decimal, then a newline. */
void show(int x)
{
    printf("%d\n", x);
}
