/* echo [-n...] [word...], streaming each word straight to stdout. */
#include <stdio.h>

int main(int argc, char **argv)
{
    int suppress = 0;
    int sep = 0;

    argv++;
    argc--;
    while (argc > 0 && (*argv)[0] == '-' && (*argv)[1] == 'n') {
        const char *p = *argv + 2;

        while (*p == 'n')
            p++;
        if (*p != '\0')
            break;
        suppress = 1;
        argv++;
        argc--;
    }

    for (; argc > 0; argc--, argv++) {
        if (sep)
            putchar(' ');
        fputs(*argv, stdout);
        sep = 1;
    }
    if (!suppress)
        putchar('\n');
    return fflush(stdout) == 0 ? 0 : 1;
}
