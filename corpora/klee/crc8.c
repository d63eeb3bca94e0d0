/* CRC-8 (polynomial 0x07) of 4 bytes: bit by bit (branch-free) against a nibble table. */
#include <klee/klee.h>

static unsigned char crc_ref(const unsigned char *p, int n) {
    unsigned char c = 0;
    for (int i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = (unsigned char)((c << 1) ^ (0x07 & -(c >> 7)));
    }
    return c;
}
static const unsigned char nibble[16] = {0x00, 0x07, 0x0e, 0x09, 0x1c, 0x1b, 0x12, 0x15,
                                         0x38, 0x3f, 0x36, 0x31, 0x24, 0x23, 0x2a, 0x2d};
static unsigned char crc_opt(const unsigned char *p, int n) {
    unsigned char c = 0;
    for (int i = 0; i < n; i++) {
        c ^= p[i];
        c = (unsigned char)((c << 4) ^ nibble[c >> 4]);
        c = (unsigned char)((c << 4) ^ nibble[c >> 4]);
    }
    return c;
}

int main(void) {
    unsigned char p[4];
    klee_make_symbolic(p, sizeof p, "p");
    klee_assert(crc_ref(p, 4) == crc_opt(p, 4));
    return 0;
}
