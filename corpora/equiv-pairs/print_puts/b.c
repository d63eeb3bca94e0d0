#include <stdio.h>

/* A greeting, louder when asked. */
int greet(int loud)
{
    const char *text = loud ? "HELLO" : "hello";

    printf("%s, ", text);
    fputs(loud ? "WORLD\n" : "world\n", stdout);
    return 0;
}
