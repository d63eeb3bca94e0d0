#include <stddef.h>
#include <stdint.h>

#define MAX_LEN 8          /* a multiple of 4 */
#define ONES    0x01010101u
#define HIGHS   0x80808080u

/* Little-endian 32-bit word at p, without alignment requirements. */
static uint32_t load_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

/* Length of the string at s, looking at no more than MAX_LEN bytes
   (like strnlen(s, MAX_LEN)). Four bytes at a time: (w - ONES) & ~w & HIGHS
   is nonzero iff w has a zero byte, and its lowest set bit marks the first one. */
size_t str_len_bounded(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;

    for (size_t i = 0; i < MAX_LEN; i += 4) {
        uint32_t w = load_le32(p + i);
        uint32_t zeros = (w - ONES) & ~w & HIGHS;

        if (zeros != 0)
            return i + (size_t)(__builtin_ctz(zeros) / 8);
    }
    return MAX_LEN;
}
