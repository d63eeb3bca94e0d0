#include <stddef.h>
#include <stdint.h>

#define MAX_LEN 8

/* djb2 hash (h = h * 33 + c) of the string at s, at most MAX_LEN bytes. */
uint32_t hash_string(const char *s)
{
    uint32_t h = 5381;

    for (size_t i = 0; i < MAX_LEN && s[i] != '\0'; i++)
        h = h * 33 + s[i];      /* BUG: char is signed, bytes >= 0x80 are sign-extended */
    return h;
}
