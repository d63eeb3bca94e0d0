/* wc -l: read standard input in blocks and let memchr find the newlines;
 * the count is formatted by hand and written with write(2). */
#include <string.h>
#include <unistd.h>

static int put_count(unsigned long n)
{
    char digits[24];
    size_t pos = sizeof digits;

    digits[--pos] = '\n';
    do {
        digits[--pos] = (char)('0' + n % 10);
        n /= 10;
    } while (n != 0);
    return write(STDOUT_FILENO, digits + pos, sizeof digits - pos) < 0;
}

int main(int argc, char **argv)
{
    char block[512];
    unsigned long count = 0;
    ssize_t got;

    if (argc != 1) {
        static const char usage[] = "usage: ";
        write(STDERR_FILENO, usage, sizeof usage - 1);
        write(STDERR_FILENO, argv[0], strlen(argv[0]));
        write(STDERR_FILENO, " < file\n", 8);
        return 2;
    }
    while ((got = read(STDIN_FILENO, block, sizeof block)) > 0) {
        const char *p = block, *end = block + got;

        while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
            count++;
            p++;
        }
    }
    if (got < 0) {
        write(STDERR_FILENO, "wc-l: read error\n", 17);
        return 1;
    }
    return put_count(count);
}
