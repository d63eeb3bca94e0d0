#include <stddef.h>
unsigned long crc32(unsigned long crc, const unsigned char *buf, unsigned len) {
    if (buf == NULL) return 0;
    unsigned long c = crc ^ 0xffffffffUL;
    for (unsigned i = 0; i < len; i++) {
        c ^= buf[i];
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xedb88320UL & -(c & 1));
    }
    return (c ^ 0xffffffffUL) & 0xffffffffUL;
}
