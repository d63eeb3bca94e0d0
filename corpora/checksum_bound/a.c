#include <stdint.h>

#define MAX_LEN 8u

/* Additive checksum of the first len bytes of buf (len capped at MAX_LEN). */
uint32_t checksum(const uint8_t *buf, unsigned len)
{
    uint32_t sum = 0;

    if (len > MAX_LEN)
        len = MAX_LEN;
    for (unsigned i = 0; i < len; i++)
        sum += buf[i];
    return sum;
}
