/* cat -n, GNU behaviour: every line is numbered, including a final line
 * that lacks its newline, which is copied without adding one. */
#include <stdio.h>

int main(int argc, char **argv)
{
    int at_line_start = 1;
    int line = 0;
    int c;

    if (argc > 1) {
        fprintf(stderr, "%s: reads standard input only\n", argv[0]);
        return 1;
    }
    while ((c = getchar()) != EOF) {
        if (at_line_start)
            printf("%6d\t", ++line);
        putchar(c);
        at_line_start = (c == '\n');
    }
    return 0;
}
