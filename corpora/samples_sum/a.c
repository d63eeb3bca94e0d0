#include <stdint.h>

#define MAX_SAMPLES 4u

struct samples {
    unsigned count;              /* entries of value[] in use; more is treated as MAX_SAMPLES */
    int value[MAX_SAMPLES];
};

/* Sum of the samples in use, in 64 bits so that it cannot overflow. */
long long samples_sum(const struct samples *s)
{
    unsigned n = s->count < MAX_SAMPLES ? s->count : MAX_SAMPLES;
    long long total = 0;

    for (unsigned i = 0; i < n; i++)
        total += s->value[i];
    return total;
}
