unsigned crc32(unsigned crc, const unsigned char *buf, unsigned len) {
    crc = ~crc;
    for (unsigned i = 0; i < len; i++) {
        crc ^= buf[i];
        for (int k = 0; k < 8; k++) crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
    }
    return ~crc;
}
