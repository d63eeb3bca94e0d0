#include <stdio.h>

/* Whether x is a positive even number, said and returned. */
int check(int x)
{
    if (x <= 0 || (x & 1)) {
        printf("%s\n", "no");
        return 0;
    }
    printf("%s\n", "yes");
    return 1;
}
