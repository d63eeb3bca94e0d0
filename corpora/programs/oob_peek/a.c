/* Prints the first word of stdin in upper case. After the loop it peeks at the byte after
 * the word, one past the buffer when the word fills it: undefined behaviour that a native
 * run does not show (the byte is read and ignored). */
#include <ctype.h>
#include <stdio.h>
#include <unistd.h>

int main(void) {
    char word[4];
    ssize_t n = read(0, word, sizeof word);
    ssize_t i = 0;
    while (i < n && !isspace((unsigned char)word[i]))
        putchar(toupper((unsigned char)word[i++]));
    volatile char next = word[i];
    (void)next;
    putchar('\n');
    return 0;
}
