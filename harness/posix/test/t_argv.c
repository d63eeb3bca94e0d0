/* Native test: the initial stack block. Runs __xc_env_init on this program's own arguments
 * (after argv[0]) and prints the block (argc, argv bytes, envp, auxv); then runs
 * __xc_env_reset after scribbling over the first program's arguments and prints the new
 * block, which must be the same with fresh pointers; every string must be zero-padded to
 * whole words. run.sh compares the output. */
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>

#include "t.h"

static void print_arg(const unsigned char *s) {
    putchar('"');
    for (; *s; s++) {
        if (*s >= 32 && *s < 127 && *s != '"' && *s != '\\')
            putchar(*s);
        else
            printf("\\x%02x", *s);
    }
    putchar('"');
}

/* Each string is padded with zeros so that word-wise scans (musl's strlen reads aligned
 * 8-byte words) stay inside its object. */
static int padded(const unsigned char *s) {
    size_t len = strlen((const char *)s) + 1, want = (len + 14) & ~(size_t)7;
    if (malloc_usable_size((void *)s) < want)
        return 0;
    for (size_t i = len; i < want; i++)
        if (s[i])
            return 0;
    return 1;
}

static void print_block(const long *b) {
    long argc = b[0];
    printf("argc=%ld\n", argc);
    for (long i = 0; i < argc; i++)
        if (!padded((const unsigned char *)b[1 + i]))
            printf("argv[%ld] is not padded\n", i);
    for (long i = 0; i < argc; i++) {
        printf("argv[%ld]=", i);
        print_arg((const unsigned char *)b[1 + i]);
        putchar('\n');
    }
    printf("argv[argc]=%ld envp[0]=%ld\n", b[1 + argc], b[2 + argc]);
    for (const long *aux = b + 3 + argc;; aux += 2) {
        if (aux[0] == XC_AT_RANDOM) {
            const unsigned char *r = (const unsigned char *)aux[1];
            printf("aux %ld=", aux[0]);
            for (int i = 0; i < 16; i++)
                printf("%02x", r[i]);
            putchar('\n');
        } else {
            printf("aux %ld=%ld\n", aux[0], aux[1]);
        }
        if (aux[0] == XC_AT_NULL)
            break;
    }
}

int main(int argc, char **argv) {
    long *b = __xc_env_init(argc - 1, argv + 1);
    print_block(b);

    /* What a program may do to its arguments: write into them, permute the array. */
    long n = b[0];
    for (long i = 0; i < n; i++) {
        char *s = (char *)b[1 + i];
        if (s[0])
            s[0] = '#';
    }
    if (n > 2) {
        long t = b[1];
        b[1] = b[2];
        b[2] = t;
    }

    long *c = __xc_env_reset();
    printf("-- after reset\n");
    print_block(c);
    int fresh = c != b;
    for (long i = 0; i < n && i < c[0]; i++)
        for (long j = 0; j < n; j++)
            if (c[1 + i] == b[1 + j])
                fresh = 0;
    printf("fresh=%d\n", fresh);
    return 0;
}
