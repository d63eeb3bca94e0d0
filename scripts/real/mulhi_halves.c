unsigned mulhi(unsigned a, unsigned b) {
    unsigned a0 = a & 0xffff, a1 = a >> 16, b0 = b & 0xffff, b1 = b >> 16;
    unsigned p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    unsigned mid = (p00 >> 16) + (p01 & 0xffff) + (p10 & 0xffff);
    return p11 + (p01 >> 16) + (p10 >> 16) + (mid >> 16);
}
