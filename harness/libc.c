/* Weak definitions of the small C library functions that checked functions commonly call,
 * or that clang introduces for loops (memcmp, bcmp, strlen). They are ordinary C, explored
 * symbolically like the program itself. Every definition is weak, so a program linked with
 * a real C library (or defining the function itself) uses its own.
 *
 * Also provided: glibc's <ctype.h> tables (__ctype_b_loc, __ctype_tolower_loc,
 * __ctype_toupper_loc), because code compiled against glibc's headers expands isdigit()
 * and friends into lookups in them. The tables describe the "C" locale. */
#include <stddef.h>
#include <stdint.h>

#define WEAK __attribute__((weak))

/* errno of function checks: one object both sides use, which the crosscheck treats as a
 * global both sides define (crosscheck/globals.rs, ERRNO_GLOBAL): an input, reset before
 * side B runs, and compared. musl's code linked into a side (load/libm.rs) reaches it
 * through this __errno_location too. */
int __xc_errno;
WEAK int *__errno_location(void) { return &__xc_errno; }
WEAK int *___errno_location(void) { return &__xc_errno; } /* musl's internal name */

WEAK int memcmp(const void *a, const void *b, size_t n) {
    const unsigned char *p = a, *q = b;
    for (size_t i = 0; i < n; i++)
        if (p[i] != q[i])
            return p[i] - q[i];
    return 0;
}

WEAK int bcmp(const void *a, const void *b, size_t n) { return memcmp(a, b, n); }

WEAK void *memchr(const void *s, int c, size_t n) {
    const unsigned char *p = s;
    for (size_t i = 0; i < n; i++)
        if (p[i] == (unsigned char)c)
            return (void *)(p + i);
    return NULL;
}

WEAK size_t strlen(const char *s) {
    size_t n = 0;
    while (s[n])
        n++;
    return n;
}

WEAK size_t strnlen(const char *s, size_t max) {
    size_t n = 0;
    while (n < max && s[n])
        n++;
    return n;
}

WEAK int strcmp(const char *a, const char *b) {
    while (*a && *a == *b) {
        a++;
        b++;
    }
    return (unsigned char)*a - (unsigned char)*b;
}

WEAK int strncmp(const char *a, const char *b, size_t n) {
    for (; n > 0; n--, a++, b++) {
        if (*a != *b)
            return (unsigned char)*a - (unsigned char)*b;
        if (!*a)
            return 0;
    }
    return 0;
}

WEAK char *strchr(const char *s, int c) {
    for (;; s++) {
        if (*s == (char)c)
            return (char *)s;
        if (!*s)
            return NULL;
    }
}

WEAK char *strrchr(const char *s, int c) {
    const char *last = NULL;
    for (;; s++) {
        if (*s == (char)c)
            last = s;
        if (!*s)
            return (char *)last;
    }
}

WEAK char *strcpy(char *d, const char *s) {
    char *r = d;
    while ((*d++ = *s++))
        ;
    return r;
}

WEAK char *strncpy(char *d, const char *s, size_t n) {
    size_t i = 0;
    for (; i < n && s[i]; i++)
        d[i] = s[i];
    for (; i < n; i++)
        d[i] = 0;
    return d;
}

WEAK char *strcat(char *d, const char *s) {
    strcpy(d + strlen(d), s);
    return d;
}

WEAK int abs(int x) { return x < 0 ? -x : x; }
WEAK long labs(long x) { return x < 0 ? -x : x; }
WEAK long long llabs(long long x) { return x < 0 ? -x : x; }

WEAK int isdigit(int c) { return (unsigned)c - '0' < 10; }
WEAK int isupper(int c) { return (unsigned)c - 'A' < 26; }
WEAK int islower(int c) { return (unsigned)c - 'a' < 26; }
WEAK int isalpha(int c) { return isupper(c) || islower(c); }
WEAK int isalnum(int c) { return isalpha(c) || isdigit(c); }
WEAK int isxdigit(int c) { return isdigit(c) || (unsigned)(c | 32) - 'a' < 6; }
WEAK int isspace(int c) { return c == ' ' || (unsigned)c - '\t' < 5; }
WEAK int isprint(int c) { return (unsigned)c - 0x20 < 0x5f; }
WEAK int isgraph(int c) { return (unsigned)c - 0x21 < 0x5e; }
WEAK int ispunct(int c) { return isgraph(c) && !isalnum(c); }
WEAK int iscntrl(int c) { return (unsigned)c < 0x20 || c == 0x7f; }
WEAK int toupper(int c) { return islower(c) ? c - 32 : c; }
WEAK int tolower(int c) { return isupper(c) ? c + 32 : c; }

/* glibc's ctype bits (little-endian layout of <ctype.h>'s _ISbit). */
enum {
    C_UPPER = 1 << 8, C_LOWER = 1 << 9, C_ALPHA = 1 << 10, C_DIGIT = 1 << 11,
    C_XDIGIT = 1 << 12, C_SPACE = 1 << 13, C_PRINT = 1 << 14, C_GRAPH = 1 << 15,
    C_BLANK = 1 << 0, C_CNTRL = 1 << 1, C_PUNCT = 1 << 2, C_ALNUM = 1 << 3,
};

/* Indexed from -128 to 255, as glibc's tables are. */
static unsigned short ctype_b[384];
static int32_t ctype_lower[384], ctype_upper[384];
static const unsigned short *ctype_b_ptr;
static const int32_t *ctype_lower_ptr, *ctype_upper_ptr;

static void ctype_init(void) {
    for (int i = 0; i < 384; i++) {
        int c = i - 128;
        unsigned short f = 0;
        if (c >= 0 && c < 128) {
            if (isupper(c)) f |= C_UPPER;
            if (islower(c)) f |= C_LOWER;
            if (isalpha(c)) f |= C_ALPHA;
            if (isdigit(c)) f |= C_DIGIT;
            if (isxdigit(c)) f |= C_XDIGIT;
            if (isspace(c)) f |= C_SPACE;
            if (isprint(c)) f |= C_PRINT;
            if (isgraph(c)) f |= C_GRAPH;
            if (c == ' ' || c == '\t') f |= C_BLANK;
            if (iscntrl(c)) f |= C_CNTRL;
            if (ispunct(c)) f |= C_PUNCT;
            if (isalnum(c)) f |= C_ALNUM;
        }
        ctype_b[i] = f;
        ctype_lower[i] = (c >= 0 && c < 128) ? tolower(c) : c;
        ctype_upper[i] = (c >= 0 && c < 128) ? toupper(c) : c;
    }
    ctype_b_ptr = ctype_b + 128;
    ctype_lower_ptr = ctype_lower + 128;
    ctype_upper_ptr = ctype_upper + 128;
}

WEAK const unsigned short **__ctype_b_loc(void) {
    if (!ctype_b_ptr)
        ctype_init();
    return &ctype_b_ptr;
}

WEAK const int32_t **__ctype_tolower_loc(void) {
    if (!ctype_b_ptr)
        ctype_init();
    return &ctype_lower_ptr;
}

WEAK const int32_t **__ctype_toupper_loc(void) {
    if (!ctype_b_ptr)
        ctype_init();
    return &ctype_upper_ptr;
}
