#include <stddef.h>
#include <stdint.h>

#define BUF_LEN 8          /* a multiple of 4 */
#define ONES    0x01010101u
#define HIGHS   0x80808080u

/* Little-endian 32-bit word at p, without alignment requirements. */
static uint32_t load_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

/* Index of the first byte of buf equal to (unsigned char)c, or -1
   (like memchr(buf, c, BUF_LEN)). Four bytes at a time: xor with the byte
   repeated four times turns matches into zero bytes, then find the first
   zero byte. */
int find_byte(const unsigned char *buf, int c)
{
    uint32_t pattern = (uint32_t)(unsigned char)c * ONES;

    for (int i = 0; i < BUF_LEN; i += 4) {
        uint32_t w = load_le32(buf + i) ^ pattern;
        uint32_t hits = (w - ONES) & ~w & HIGHS;

        if (hits != 0)
            return i + (int)(__builtin_ctz(hits) / 8);
    }
    return -1;
}
