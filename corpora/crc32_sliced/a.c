/* CRC-32 (reflected polynomial 0xEDB88320) of a 2-byte message, one bit at a time. */
unsigned crc32_2(const unsigned char *p)
{
    unsigned c = ~0u;
    for (int i = 0; i < 2; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xEDB88320u & -(c & 1u));
    }
    return ~c;
}
