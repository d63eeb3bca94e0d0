/* tr a-z A-Z: upper-case standard input with toupper(3) in the C locale. */
#include <ctype.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int c;

    if (argc != 1) {
        fprintf(stderr, "usage: %s < file\n", argv[0]);
        return 2;
    }
    while ((c = getchar()) != EOF) {
        if (putchar(toupper(c)) == EOF)
            return 1;
    }
    if (ferror(stdin)) {
        fputs("tr-upper: read error\n", stderr);
        return 1;
    }
    return fflush(stdout) == EOF ? 1 : 0;
}
