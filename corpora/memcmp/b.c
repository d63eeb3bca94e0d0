#include <stddef.h>
#include <stdint.h>

#define BUF_LEN 8          /* a multiple of 4 */

/* Little-endian 32-bit word at p, without alignment requirements. */
static uint32_t load_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

/* Compare two BUF_LEN-byte buffers like memcmp, normalised to -1, 0 or 1.
   Four bytes at a time; in a little-endian word the lowest differing bit
   belongs to the first differing byte. */
int compare_buffers(const unsigned char *a, const unsigned char *b)
{
    for (size_t i = 0; i < BUF_LEN; i += 4) {
        uint32_t wa = load_le32(a + i);
        uint32_t wb = load_le32(b + i);

        if (wa != wb) {
            unsigned shift = (unsigned)__builtin_ctz(wa ^ wb) & ~7u;
            uint32_t ca = (wa >> shift) & 0xff;
            uint32_t cb = (wb >> shift) & 0xff;

            return ca < cb ? -1 : 1;
        }
    }
    return 0;
}
