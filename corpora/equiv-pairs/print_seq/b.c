#include <stdint.h>
#include <stdio.h>

static void number(int v)
{
    if (v >= 10)
        number(v / 10);
    fputc('0' + v % 10, stdout);
}

/* 1 2 ... n and a newline. */
void count(uint8_t n)
{
    for (int i = 1; i <= n; i++) {
        if (i > 1)
            fputc(' ', stdout);
        number(i);
    }
    fputc('\n', stdout);
}
