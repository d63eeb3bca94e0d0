#include <stdint.h>
#include <stdio.h>

/* 1 2 ... n and a newline. */
void count(uint8_t n)
{
    for (int i = 1; i <= n; i++)
        printf(i == 1 ? "%d" : " %d", i);
    printf("\n");
}
