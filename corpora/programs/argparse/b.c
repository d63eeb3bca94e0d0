/* demo [-abc] [--] [operand...]: hand-rolled option scanner. */
#include <stdio.h>
#include <stdlib.h>

static int opt_a, opt_b, opt_c;

static void bad_option(const char *prog, char c)
{
    fprintf(stderr, "%s: unknown option '-%c'\n", prog, c);
    exit(2);
}

int main(int argc, char **argv)
{
    char **operands = argv + 1;
    char **ap;
    int nops = 0;

    /* Operands are collected as they come; a lone "-" means standard
     * input, so it is kept as an operand and scanning goes on. */
    for (ap = argv + 1; *ap != NULL; ap++) {
        char *s = *ap;

        if (s[0] == '-' && s[1] == '-' && s[2] == '\0') {
            ap++;
            break;
        }
        if (s[0] != '-') {
            break;
        }
        if (s[1] == '\0') {
            operands[nops++] = s;
            continue;
        }
        while (*++s != '\0') {
            switch (*s) {
            case 'a': opt_a = 1; break;
            case 'b': opt_b = 1; break;
            case 'c': opt_c = 1; break;
            default: bad_option(argv[0], *s);
            }
        }
    }
    while (*ap != NULL)
        operands[nops++] = *ap++;

    printf("flags:%s%s%s\n", opt_a ? " a" : "", opt_b ? " b" : "",
           opt_c ? " c" : "");
    for (ap = operands; ap < operands + nops; ap++)
        printf("operand: %s\n", *ap);
    (void)argc;
    return 0;
}
