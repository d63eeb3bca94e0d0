#include <stddef.h>
#include <stdint.h>

#define BUF_LEN 8

/* Compare two BUF_LEN-byte buffers like memcmp, normalised to -1, 0 or 1.
   One byte at a time. */
int compare_buffers(const unsigned char *a, const unsigned char *b)
{
    for (size_t i = 0; i < BUF_LEN; i++) {
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    }
    return 0;
}
