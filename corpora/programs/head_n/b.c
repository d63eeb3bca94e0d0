/* head [-n K]: print the first K lines of standard input (default 10). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    char buf[128];
    int want = 10;
    ssize_t got;

    if (argc == 3 && !strcmp(argv[1], "-n")) {
        want = atoi(argv[2]);
    } else if (argc != 1) {
        static const char msg[] = "usage: head [-n lines] < file\n";
        write(2, msg, sizeof msg - 1);
        return 1;
    }

    while (want > 0 && (got = read(0, buf, sizeof buf)) > 0) {
        ssize_t keep = 0;

        while (keep < got && want > 0) {
            char *nl = memchr(buf + keep, '\n', (size_t)(got - keep));

            if (nl == NULL) {
                keep = got;
            } else {
                keep = nl - buf + 1;
                want--;
            }
        }
        if (write(1, buf, (size_t)keep) != keep)
            return 1;
    }
    return 0;
}
