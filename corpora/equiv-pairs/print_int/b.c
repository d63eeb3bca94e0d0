#include <stdio.h>

/* x in decimal, then a newline, digit by digit. */
void show(int x)
{
    char digits[10];
    unsigned u = x < 0 ? 0u - (unsigned)x : (unsigned)x;
    int n = 0;

    if (x < 0)
        putchar('-');
    do {
        digits[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    while (n > 0)
        putchar(digits[--n]);
    putchar('\n');
}
