#include <stdio.h>

/* x right-aligned in five columns, then a bar, by hand. */
void pad(unsigned x)
{
    char buf[10];
    int n = 0;

    do {
        buf[n++] = (char)('0' + x % 10);
        x /= 10;
    } while (x);
    for (int i = n; i < 5; i++)
        putchar(' ');
    while (n)
        putchar(buf[--n]);
    fputs("|\n", stdout);
}
