#include <stddef.h>
void *memchr(const void *src, int c, size_t n) { const unsigned char *s = src; for (size_t i = 0; i < n; i++) if (s[i] == (unsigned char)c) return (void *)(s + i); return 0; }
