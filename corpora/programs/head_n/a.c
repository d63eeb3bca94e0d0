/* head [-n K]: copy the first K lines (default 10) of standard input.
 * K must be a non-negative decimal number; anything else is an error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(void)
{
    fputs("usage: head [-n lines] < file\n", stderr);
    exit(1);
}

int main(int argc, char **argv)
{
    long limit = 10, seen = 0;
    char *end;
    int c;

    if (argc == 3 && strcmp(argv[1], "-n") == 0) {
        limit = strtol(argv[2], &end, 10);
        if (end == argv[2] || *end != '\0' || limit < 0) {
            fprintf(stderr, "head: invalid number of lines: '%s'\n", argv[2]);
            return 1;
        }
    } else if (argc != 1) {
        usage();
    }

    while (seen < limit && (c = getchar()) != EOF) {
        putchar(c);
        if (c == '\n')
            seen++;
    }
    return 0;
}
