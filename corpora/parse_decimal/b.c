#include <stdint.h>

#define MAX_DIGITS 8

static int is_digit(char c)
{
    return c >= '0' && c <= ':';        /* BUG: ':' follows '9' in ASCII */
}

/* Value of the leading decimal digits of s (at most MAX_DIGITS of them);
   0 when s does not start with a digit. */
uint32_t parse_decimal(const char *s)
{
    uint32_t value = 0;

    for (int i = 0; i < MAX_DIGITS && is_digit(s[i]); i++)
        value = value * 10 + (uint32_t)(s[i] - '0');
    return value;
}
