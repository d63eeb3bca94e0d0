#include <stdio.h>

/* FizzBuzz's line for n, testing 3 before 15 (wrong). */
void fizz(int n)
{
    if (n % 3 == 0)
        puts("Fizz");
    else if (n % 15 == 0)
        puts("FizzBuzz");
    else if (n % 5 == 0)
        puts("Buzz");
    else
        printf("%d\n", n);
}
