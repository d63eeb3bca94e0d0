/* echo, BSD flavour: each option is a word of its own ("-n", "-e" or
 * "-E"), and "--" ends the options without being printed. */
#include <stdio.h>
#include <string.h>

/* Expands the escape whose letter s points at (the backslash before it
 * was not the last character of the word); sets *stop on "\c". */
static const char *put_escape(const char *s, int *stop)
{
    static const char from[] = "nt\\";
    static const char to[] = "\n\t\\";
    const char *hit;

    if (*s == 'c') {
        *stop = 1;
        return s + 1;
    }
    hit = strchr(from, *s);
    if (hit != NULL) {
        putchar(to[hit - from]);
    } else {
        putchar('\\');
        putchar(*s);
    }
    return s + 1;
}

int main(int argc, char **argv)
{
    int trailing_newline = 1, interpret = 0, stop = 0;
    int first = 1, k;

    while (first < argc && argv[first][0] == '-') {
        if (strcmp(argv[first], "-n") == 0)
            trailing_newline = 0;
        else if (strcmp(argv[first], "-e") == 0)
            interpret = 1;
        else if (strcmp(argv[first], "-E") == 0)
            interpret = 0;
        else if (strcmp(argv[first], "--") == 0) {
            first++;
            break;
        } else
            break;
        first++;
    }

    for (k = first; k < argc && !stop; k++) {
        const char *s = argv[k];

        while (*s != '\0' && !stop) {
            if (interpret && s[0] == '\\' && s[1] != '\0')
                s = put_escape(s + 1, &stop);
            else
                putchar(*s++);
        }
        if (!stop && k + 1 < argc)
            putchar(' ');
    }
    if (trailing_newline && !stop)
        putchar('\n');
    return 0;
}
