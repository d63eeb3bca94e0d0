/* CRC-32 of a 2-byte message by slicing: eight tables of 256 words (8 KiB, as coreutils'
 * cksum has), built on the first call; the message is read as tables 1 and 0. */
static unsigned table[8][256];
static int ready;

static void fill(void)
{
    for (unsigned i = 0; i < 256; i++) {
        unsigned c = i;
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xEDB88320u & -(c & 1u));
        table[0][i] = c;
    }
    for (unsigned i = 0; i < 256; i++)
        for (int t = 1; t < 8; t++)
            table[t][i] = (table[t - 1][i] >> 8) ^ table[0][table[t - 1][i] & 0xff];
    ready = 1;
}

unsigned crc32_2(const unsigned char *p)
{
    if (!ready)
        fill();
    unsigned c = ~0u ^ (p[0] | (unsigned)p[1] << 8);
    c = (c >> 16) ^ table[1][c & 0xff] ^ table[0][(c >> 8) & 0xff];
    return ~c;
}
