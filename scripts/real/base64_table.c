static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
void b64(const unsigned char *in, char *out) {
    unsigned v = (in[0] << 16) | (in[1] << 8) | in[2];
    for (int i = 0; i < 4; i++) out[i] = tab[(v >> (18 - 6 * i)) & 63];
}
