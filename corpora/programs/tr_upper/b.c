/* tr a-z A-Z: block-wise ASCII upper-casing without <ctype.h>. */
#include <stdio.h>
#include <unistd.h>

#define CHUNK 64

int main(int argc, char **argv)
{
    char chunk[CHUNK];
    ssize_t len;

    (void)argv;
    if (argc > 1) {
        fputs("tr-upper takes no arguments\n", stderr);
        return 2;
    }
    for (;;) {
        ssize_t i, off = 0;

        len = read(STDIN_FILENO, chunk, CHUNK);
        if (len <= 0)
            break;
        for (i = 0; i < len; i++)
            if (chunk[i] >= 'a' && chunk[i] <= 'z')
                chunk[i] = (char)(chunk[i] - ('a' - 'A'));
        while (off < len) {
            ssize_t put = write(STDOUT_FILENO, chunk + off, (size_t)(len - off));

            if (put < 0)
                return 1;
            off += put;
        }
    }
    return len < 0 ? 1 : 0;
}
