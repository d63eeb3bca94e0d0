/* echo in the GNU coreutils style: leading arguments made only of the
 * letters n, e and E (after a '-') are options and may be combined
 * ("-ne", "-nn"); "--" is not special and is printed like any word. */
#include <stdio.h>
#include <string.h>

static int is_option(const char *arg)
{
    const char *p;

    if (arg[0] != '-' || arg[1] == '\0')
        return 0;
    for (p = arg + 1; *p != '\0'; p++)
        if (strchr("neE", *p) == NULL)
            return 0;
    return 1;
}

/* Prints s with backslash escapes expanded; returns 0 once "\c" is seen. */
static int put_escaped(const char *s)
{
    while (*s != '\0') {
        int c = (unsigned char)*s++;

        if (c != '\\' || *s == '\0') {
            putchar(c);
            continue;
        }
        c = (unsigned char)*s++;
        switch (c) {
        case 'n':
            putchar('\n');
            break;
        case 't':
            putchar('\t');
            break;
        case '\\':
            putchar('\\');
            break;
        case 'c':
            return 0;
        default:
            putchar('\\');
            putchar(c);
            break;
        }
    }
    return 1;
}

int main(int argc, char **argv)
{
    int newline = 1;
    int escapes = 0;
    int i;

    for (i = 1; i < argc && is_option(argv[i]); i++) {
        const char *p;

        for (p = argv[i] + 1; *p != '\0'; p++) {
            if (*p == 'n')
                newline = 0;
            else if (*p == 'e')
                escapes = 1;
            else
                escapes = 0;
        }
    }

    for (; i < argc; i++) {
        if (escapes) {
            if (!put_escaped(argv[i]))
                return 0;
        } else {
            fputs(argv[i], stdout);
        }
        if (i + 1 < argc)
            putchar(' ');
    }
    if (newline)
        putchar('\n');
    return 0;
}
