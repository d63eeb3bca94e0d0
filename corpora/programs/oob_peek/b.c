/* The same as a.c, written with a pointer: it too reads the byte after a word that fills
 * the buffer. */
#include <ctype.h>
#include <stdio.h>
#include <unistd.h>

int main(void) {
    char word[4];
    ssize_t n = read(0, word, sizeof word);
    const char *p = word, *end = word + (n > 0 ? n : 0);
    for (; p < end && !isspace((unsigned char)*p); p++)
        putchar(toupper((unsigned char)*p));
    volatile char next = *p;
    (void)next;
    putchar('\n');
    return 0;
}
