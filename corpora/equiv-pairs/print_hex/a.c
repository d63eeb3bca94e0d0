#include <stdio.h>

/* x in lower-case hexadecimal; the number of digits written. */
int hex(unsigned x)
{
    return printf("%x", x);
}
