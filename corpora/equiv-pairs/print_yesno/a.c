#include <stdio.h>

/* Whether x is a positive even number, said and returned. */
int check(int x)
{
    int ok = x > 0 && x % 2 == 0;

    puts(ok ? "yes" : "no");
    return ok;
}
