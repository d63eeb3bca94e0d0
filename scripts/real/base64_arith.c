static char enc(unsigned x) {
    if (x < 26) return 'A' + x;
    if (x < 52) return 'a' + (x - 26);
    if (x < 62) return '0' + (x - 52);
    return x == 62 ? '+' : '/';
}
void b64(const unsigned char *in, char *out) {
    out[0] = enc(in[0] >> 2);
    out[1] = enc(((in[0] & 3) << 4) | (in[1] >> 4));
    out[2] = enc(((in[1] & 15) << 2) | (in[2] >> 6));
    out[3] = enc(in[2] & 63);
}
