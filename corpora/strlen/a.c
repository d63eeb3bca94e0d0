#include <stddef.h>
#include <stdint.h>

#define MAX_LEN 8

/* Length of the string at s, looking at no more than MAX_LEN bytes
   (like strnlen(s, MAX_LEN)). One byte at a time. */
size_t str_len_bounded(const char *s)
{
    size_t n = 0;

    while (n < MAX_LEN && s[n] != '\0')
        n++;
    return n;
}
