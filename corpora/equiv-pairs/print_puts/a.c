#include <stdio.h>

/* A greeting, louder when asked. */
int greet(int loud)
{
    if (loud)
        puts("HELLO, WORLD");
    else
        puts("hello, world");
    return 0;
}
