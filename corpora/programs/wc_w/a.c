/* wc -w: count words on standard input.  A word is a maximal run of
 * characters other than blank and newline. */
#include <stdio.h>

int main(int argc, char **argv)
{
    long words = 0;
    int in_word = 0;
    int c;

    (void)argv;
    if (argc != 1) {
        fprintf(stderr, "usage: wc-w < file\n");
        return 2;
    }
    while ((c = getchar()) != EOF) {
        if (c == ' ' || c == '\n') {
            in_word = 0;
        } else if (!in_word) {
            in_word = 1;
            words++;
        }
    }
    printf("%ld\n", words);
    return 0;
}
