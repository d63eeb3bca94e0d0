/* wc -w: count whitespace-separated words on standard input. */
#include <ctype.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    unsigned char buf[256];
    unsigned long count = 0;
    int prev_space = 1;
    ssize_t n, i;

    if (argc > 1) {
        fprintf(stderr, "%s: no operands expected\n", argv[0]);
        return 2;
    }
    while ((n = read(0, buf, sizeof buf)) > 0) {
        for (i = 0; i < n; i++) {
            int space = isspace(buf[i]) != 0;

            if (prev_space && !space)
                count++;
            prev_space = space;
        }
    }
    if (n < 0) {
        perror("read");
        return 1;
    }
    printf("%lu\n", count);
    return 0;
}
