#include <stddef.h>
unsigned long adler32(unsigned long adler, const unsigned char *buf, unsigned len) {
    unsigned long a = adler & 0xffff, b = (adler >> 16) & 0xffff;
    if (buf == NULL) return 1;
    for (unsigned i = 0; i < len; i++) {
        a = (a + buf[i]) % 65521;
        b = (b + a) % 65521;
    }
    return (b << 16) | a;
}
