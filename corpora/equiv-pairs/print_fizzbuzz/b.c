#include <stdio.h>

/* FizzBuzz's line for n, built from its parts. */
void fizz(int n)
{
    int three = n % 3 == 0, five = n % 5 == 0;

    if (three)
        fputs("Fizz", stdout);
    if (five)
        fputs("Buzz", stdout);
    if (!three && !five)
        printf("%d", n);
    putchar('\n');
}
