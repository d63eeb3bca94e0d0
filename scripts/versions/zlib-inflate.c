/* zlib's inflate on bounded inputs, for `xcheck lib` (issue 35): scripts/build-versions.sh
 * links this file with each zlib version into zlib-<version>/wrapped.bc. inflate takes a
 * z_stream whose pointers the caller sets up; each wrapper sets it up around a bounded
 * input `in` (IN bytes) and output `out` (OUT bytes) and returns inflate's status and the
 * bytes written (status * 256 + total_out); the check compares `out` too. */
#include <string.h>
#include "zlib.h"

#define IN 8
#define OUT 16

static int run(unsigned char *in, unsigned char *out, int window_bits)
{
	z_stream s;
	memset(&s, 0, sizeof s);
	if (inflateInit2(&s, window_bits) != Z_OK)
		return -1000;
	s.next_in = in;
	s.avail_in = IN;
	s.next_out = out;
	s.avail_out = OUT;
	int r = inflate(&s, Z_FINISH);
	int n = (int)s.total_out;
	inflateEnd(&s);
	return r * 256 + n;
}

/* A zlib stream (header, deflate data, adler32). */
int xc_inflate(unsigned char *in, unsigned char *out) { return run(in, out, 15); }
/* Raw deflate data. */
int xc_inflate_raw(unsigned char *in, unsigned char *out) { return run(in, out, -15); }
