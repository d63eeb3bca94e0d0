/* echo [-n...] [word...]: assembles the whole line in memory and writes it
 * with a single call.  Any leading word of the form "-n", "-nn", ...
 * suppresses the trailing newline. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_n_option(const char *arg)
{
    size_t len = strlen(arg);

    return len >= 2 && arg[0] == '-' && strspn(arg + 1, "n") == len - 1;
}

int main(int argc, char **argv)
{
    int first = 1, i;
    int newline = 1;
    size_t total = 0, used = 0;
    char *line;

    while (first < argc && is_n_option(argv[first])) {
        newline = 0;
        first++;
    }

    for (i = first; i < argc; i++)
        total += strlen(argv[i]) + 1;
    line = malloc(total + 1);
    if (line == NULL) {
        fputs("echo: out of memory\n", stderr);
        return 1;
    }

    for (i = first; i < argc; i++) {
        size_t len = strlen(argv[i]);

        if (i > first)
            line[used++] = ' ';
        memcpy(line + used, argv[i], len);
        used += len;
    }
    if (newline)
        line[used++] = '\n';

    if (used > 0 && fwrite(line, 1, used, stdout) != used) {
        free(line);
        return 1;
    }
    free(line);
    return 0;
}
