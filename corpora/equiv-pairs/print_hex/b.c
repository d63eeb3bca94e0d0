#include <stdio.h>

/* x in lower-case hexadecimal, nibble by nibble; the number of digits written. */
int hex(unsigned x)
{
    int shift = 28, n = 0;

    while (shift > 0 && (x >> shift) == 0)
        shift -= 4;
    for (; shift >= 0; shift -= 4) {
        putchar("0123456789abcdef"[(x >> shift) & 15]);
        n++;
    }
    return n;
}
