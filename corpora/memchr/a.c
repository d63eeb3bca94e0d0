#include <stddef.h>
#include <stdint.h>

#define BUF_LEN 8

/* Index of the first byte of buf equal to (unsigned char)c, or -1
   (like memchr(buf, c, BUF_LEN)). One byte at a time. */
int find_byte(const unsigned char *buf, int c)
{
    unsigned char target = (unsigned char)c;

    for (int i = 0; i < BUF_LEN; i++) {
        if (buf[i] == target)
            return i;
    }
    return -1;
}
