/* demo [-abc] [--] [operand...]: parse clustered flags the getopt way.
 * Options end at "--" (which is consumed), at a lone "-" (an operand) or
 * at the first word not starting with '-'.  Prints the flags that were
 * set, then each operand on a line of its own. */
#include <stdio.h>
#include <string.h>

#define FLAG_A 1u
#define FLAG_B 2u
#define FLAG_C 4u

int main(int argc, char **argv)
{
    unsigned flags = 0;
    int i;

    for (i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *p;

        if (arg[0] != '-' || arg[1] == '\0')
            break;
        if (strcmp(arg, "--") == 0) {
            i++;
            break;
        }
        for (p = arg + 1; *p != '\0'; p++) {
            const char *known = strchr("abc", *p);

            if (known == NULL) {
                fprintf(stderr, "%s: invalid option -- '%c'\n", argv[0], *p);
                return 2;
            }
            flags |= 1u << (known - "abc");
        }
    }

    fputs("flags:", stdout);
    if (flags & FLAG_A)
        fputs(" a", stdout);
    if (flags & FLAG_B)
        fputs(" b", stdout);
    if (flags & FLAG_C)
        fputs(" c", stdout);
    putchar('\n');
    for (; i < argc; i++)
        printf("operand: %s\n", argv[i]);
    return 0;
}
