#include <stdint.h>

#define MAX_LETTERS 3

/* Permission bits (r = 4, w = 2, x = 1) named by the letters of s, as in
   "chmod u=rw"; the list ends at NUL or after MAX_LETTERS letters.
   Returns -1 for any other letter. */
int parse_perm(const char *s)
{
    int mode = 0;

    for (int i = 0; i < MAX_LETTERS && s[i] != '\0'; i++) {
        switch (s[i]) {
        case 'r':
            mode |= 4;
            break;
        case 'w':
            mode |= 2;
            break;
        case 'x':
            mode |= 1;
            break;
        default:
            return -1;
        }
    }
    return mode;
}
