/* musl's printf family through wrappers of a fixed shape, for `xcheck lib` (issue 35):
 * scripts/build-versions.sh links this file with each musl version's src/stdio and the
 * other directories it builds into musl-<version>/printf.bc. A variadic function cannot be
 * checked as it stands (its arguments have no fixed types); each wrapper fixes a format and
 * the argument types, and takes the output buffer as its parameter `out`, whose final bytes
 * the check compares with the return value (`--buffer-size out=24`). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define N 24

int xc_snprintf_d(char *out, int x) { return snprintf(out, N, "%d", x); }
int xc_snprintf_ld(char *out, long x) { return snprintf(out, N, "%ld", x); }
int xc_snprintf_u(char *out, unsigned x) { return snprintf(out, N, "%u", x); }
int xc_snprintf_x(char *out, unsigned x) { return snprintf(out, N, "%#x", x); }
int xc_snprintf_o(char *out, unsigned x) { return snprintf(out, N, "%o", x); }
int xc_snprintf_c(char *out, int c) { return snprintf(out, N, "<%c>", c); }
/* A field width (0..15) and a precision (0..7) from the inputs. */
int xc_snprintf_width(char *out, int w, int p, int x)
{
	return snprintf(out, N, "%-*.*d|", w & 15, p & 7, x);
}
/* A string of up to 4 bytes from the input, terminated here. */
int xc_snprintf_s(char *out, const char *in)
{
	char s[5];
	memcpy(s, in, 4);
	s[4] = 0;
	return snprintf(out, N, "[%3s]", s);
}
/* Truncation: the output is cut to 5 bytes, the return value is the whole length. */
int xc_snprintf_trunc(char *out, int x) { return snprintf(out, 5, "%d", x); }
int xc_sprintf_d(char *out, int x) { return sprintf(out, "%+d", x); }

static int xc_v(char *out, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(out, N, fmt, ap);
	va_end(ap);
	return n;
}
int xc_vsnprintf_di(char *out, int x, short y) { return xc_v(out, "%d %hd", x, y); }
