unsigned bswap(unsigned x) {
    unsigned char b[4];
    for (int i = 0; i < 4; i++) b[i] = (unsigned char)(x >> (8 * i));
    unsigned r = 0;
    for (int i = 0; i < 4; i++) r = (r << 8) | b[i];
    return r;
}
