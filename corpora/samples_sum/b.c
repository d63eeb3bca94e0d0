#include <stdint.h>

#define MAX_SAMPLES 4u

struct samples {
    unsigned count;              /* entries of value[] in use; more is treated as MAX_SAMPLES */
    int value[MAX_SAMPLES];
};

/* Sum of the samples in use, in 64 bits so that it cannot overflow.
   Unrolled by hand: jump into a fall-through chain, last sample first. */
long long samples_sum(const struct samples *s)
{
    long long total = 0;

    switch (s->count) {
    default:
        total += s->value[3];
        /* fall through */
    case 3:
        total += s->value[2];
        /* fall through */
    case 2:
        total += s->value[1];
        /* fall through */
    case 1:
        total += s->value[0];
        /* fall through */
    case 0:
        break;
    }
    return total;
}
