/* wc -l: count newline characters on standard input, one byte at a time. */
#include <stdio.h>

int main(int argc, char **argv)
{
    unsigned long lines = 0;
    int c;

    (void)argv;
    if (argc > 1) {
        fputs("usage: wc-l < file\n", stderr);
        return 2;
    }
    while ((c = getchar()) != EOF)
        if (c == '\n')
            lines++;
    if (ferror(stdin)) {
        perror("wc-l: read error");
        return 1;
    }
    printf("%lu\n", lines);
    return 0;
}
