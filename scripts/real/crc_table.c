static unsigned table[256];
static int made;
unsigned crc32(unsigned crc, const unsigned char *buf, unsigned len) {
    if (!made) {
        for (unsigned n = 0; n < 256; n++) {
            unsigned c = n;
            for (int k = 0; k < 8; k++) c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
            table[n] = c;
        }
        made = 1;
    }
    crc = ~crc;
    for (unsigned i = 0; i < len; i++) crc = table[(crc ^ buf[i]) & 0xff] ^ (crc >> 8);
    return ~crc;
}
