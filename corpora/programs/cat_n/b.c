/* cat -n: slurp standard input, then print it one numbered line at a time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(FILE *in, size_t *len)
{
    size_t cap = 64, n = 0;
    char *buf = malloc(cap);

    while (buf != NULL) {
        size_t got = fread(buf + n, 1, cap - n, in);

        n += got;
        if (n < cap) {
            *len = n;
            return buf;
        }
        cap *= 2;
        {
            char *bigger = realloc(buf, cap);

            if (bigger == NULL)
                free(buf);
            buf = bigger;
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    size_t len, pos = 0;
    unsigned long number = 0;
    char *text;

    (void)argv;
    if (argc != 1) {
        fputs("usage: cat-n < file\n", stderr);
        return 1;
    }
    text = slurp(stdin, &len);
    if (text == NULL) {
        fputs("cat-n: out of memory\n", stderr);
        return 1;
    }
    while (pos < len) {
        char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl != NULL ? (size_t)(nl - text) : len;

        printf("%6lu\t", ++number);
        fwrite(text + pos, 1, end - pos, stdout);
        putchar('\n');
        pos = end + 1;
    }
    free(text);
    return 0;
}
