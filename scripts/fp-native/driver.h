/* Shared part of the native ground-truth drivers of scripts/fp-ground-truth.sh.
 *
 * A generated driver (scripts/fp-native/gen.py) defines the parameters and the return type
 * of one corpus pair, its precondition and its equality, and includes this file for the
 * inputs (special values and seeded random ones), the comparisons and the printing. The
 * generated code is compiled with the usual IEEE semantics (no -ffast-math); the two sides
 * are separate objects, so nothing is folded across them. */
#define _GNU_SOURCE
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Bit patterns ---- */

static double dbits(uint64_t u) { double d; memcpy(&d, &u, sizeof d); return d; }
static float fbits(uint32_t u) { float f; memcpy(&f, &u, sizeof f); return f; }
static uint64_t bitsd(double d) { uint64_t u; memcpy(&u, &d, sizeof u); return u; }
static uint32_t bitsf(float f) { uint32_t u; memcpy(&u, &f, sizeof u); return u; }

/* ---- Special values ---- */

/* Every double the cross product of special values tries, as bit patterns. */
static const uint64_t special_double_bits[] = {
    0x0000000000000000ull, 0x8000000000000000ull,   /* +0, -0 */
    0x7ff0000000000000ull, 0xfff0000000000000ull,   /* +inf, -inf */
    0x7ff8000000000000ull, 0xfff8000000000000ull,   /* quiet NaN (+, - = x86 default NaN) */
    0x7ff8000000000001ull, 0xfff8000000000001ull,   /* quiet NaN, payload 1 */
    0x7ffc000000000000ull, 0x7fffffffffffffffull,   /* quiet NaNs, other payloads */
    0xfff4000000000000ull,                          /* -signaling NaN, payload 2^50 */
    0x7ff0000000000001ull, 0xfff0000000000001ull,   /* signaling NaN, payload 1 */
    0x7ff4000000000000ull,                          /* signaling NaN, payload 2^50 */
    0x0000000000000001ull, 0x8000000000000001ull,   /* +-smallest subnormal */
    0x000fffffffffffffull, 0x800fffffffffffffull,   /* +-largest subnormal */
    0x0010000000000000ull, 0x8010000000000000ull,   /* +-DBL_MIN */
    0x7fefffffffffffffull, 0xffefffffffffffffull,   /* +-DBL_MAX */
    0x3ff0000000000000ull, 0xbff0000000000000ull,   /* +-1 */
    0x3fe0000000000000ull, 0xbfe0000000000000ull,   /* +-0.5 */
    0x4000000000000000ull, 0xc000000000000000ull,   /* +-2 */
    0x4008000000000000ull, 0xc008000000000000ull,   /* +-3 */
    0x4004000000000000ull, 0xc004000000000000ull,   /* +-2.5 (ties) */
    0x3ff8000000000000ull, 0xbff8000000000000ull,   /* +-1.5 */
    0x3fb999999999999aull, 0xbfb999999999999aull,   /* +-0.1 */
    0x3fefffffffffffffull, 0x3ff0000000000001ull,   /* 1 - 2^-53, 1 + 2^-52 */
    0x3fdfffffffffffffull,                          /* 0.49999999999999994 */
    0x4340000000000000ull, 0xc340000000000000ull,   /* +-2^53 */
    0x4330000000000000ull,                          /* 2^52 */
    0x41dfffffffc00000ull, 0xc1e0000000000000ull,   /* INT_MAX, INT_MIN */
    0x41e0000000000000ull, 0xc1e0000000200000ull,   /* 2^31, INT_MIN - 1 */
    0x41dfffffffe00000ull,                          /* INT_MAX + 0.5 */
    0x43e0000000000000ull, 0xc3e0000000000000ull,   /* +-2^63 */
    0x4202a05f20000000ull, 0xc202a05f20000000ull,   /* +-1e10 */
    0x4376345785d8a000ull,                          /* 1e17 */
    0x6974e718d7d7625aull, 0x1a56e1fc2f8f359full,   /* 1e200, 1e-180 */
    0x7fe0000000000000ull, 0x0020000000000000ull,   /* 2^1023, 2^-1021 */
    0x5fe0000000000000ull, 0x2000000000000000ull,   /* 2^511, 2^-511 */
};

/* The few doubles of the cross product for three or more parameters. */
static const uint64_t reduced_double_bits[] = {
    0x0000000000000000ull, 0x8000000000000000ull, 0x7ff0000000000000ull,
    0xfff0000000000000ull, 0x7ff8000000000001ull, 0xfff8000000000000ull,
    0x0000000000000001ull, 0x7fefffffffffffffull, 0x3ff0000000000000ull,
    0xbff0000000000000ull, 0x3fe0000000000000ull, 0x3fb999999999999aull,
    0x4376345785d8a000ull, 0x3ca0000000000000ull, /* 2^-53 */
};

static const uint32_t special_float_bits[] = {
    0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u,   /* +-0, +-inf */
    0x7fc00000u, 0xffc00000u, 0x7fc00001u, 0xffc00001u,   /* quiet NaNs (-: x86 default) */
    0x7fe00000u, 0x7fffffffu,                             /* quiet NaNs, other payloads */
    0x7f800001u, 0xff800001u, 0x7fa00000u,                /* signaling NaNs */
    0x00000001u, 0x80000001u, 0x007fffffu, 0x807fffffu,   /* +-subnormal min and max */
    0x00800000u, 0x80800000u, 0x7f7fffffu, 0xff7fffffu,   /* +-FLT_MIN, +-FLT_MAX */
    0x3f800000u, 0xbf800000u, 0x3f000000u, 0xbf000000u,   /* +-1, +-0.5 */
    0x40000000u, 0xc0000000u, 0x40400000u, 0xc0400000u,   /* +-2, +-3 */
    0x3fc00000u, 0x40200000u, 0x3dcccccdu, 0xbdcccccdu,   /* 1.5, 2.5, +-0.1 */
    0x3f7fffffu, 0x3f800001u, 0x4b800000u, 0x4b000000u,   /* 1 - 2^-24, 1 + 2^-23, 2^24, 2^23 */
    0x4b800001u, 0x33800000u, 0x5f000000u, 0x1f800000u,   /* 2^24 + 2, 2^-24, 2^63, 2^-64 */
    0x7f000000u, 0x00800001u,                             /* 2^127, FLT_MIN + ulp */
};

static const uint32_t reduced_float_bits[] = {
    0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00001u, 0xffc00000u,
    0x00000001u, 0x7f7fffffu, 0x3f800000u, 0xbf800000u, 0x3f000000u, 0x3dcccccdu,
    0x4b800000u, 0x33800000u,
};

static const int64_t special_int[] = {
    0, 1, -1, 2, -2, 3, 7, -7, 8, 100, -100, 16777216, 16777217, -16777217,
    INT32_MAX, INT32_MIN, INT32_MAX - 1, INT32_MIN + 1, 0x40000000, -0x40000000,
};
static const int64_t reduced_int[] = { 0, 1, -1, 7, INT32_MAX, INT32_MIN };

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---- Random inputs (seeded: every run tries the same ones) ---- */

static uint64_t rng_state = 0x243f6a8885a308d3ull;

static uint64_t rng(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A uniform double in [0, 1). */
static double unit(void) { return (double)(rng() >> 11) * 0x1p-53; }

/* A random double: random bits (30%), a moderate value +-m * 2^e with e in [-20, 20]
   (30%), uniform in [-16, 16] (20%), a multiple of 1/4 in [-16, 16] (10%), a special
   value (10%). */
static double random_double(void)
{
    uint64_t pick = rng() % 10;
    double sign = (rng() & 1) ? -1.0 : 1.0;

    if (pick < 3)
        return dbits(rng());
    if (pick < 6)
        return sign * (1.0 + unit()) * ldexp(1.0, (int)(rng() % 41) - 20);
    if (pick < 8)
        return sign * 16.0 * unit();
    if (pick < 9)
        return (double)((int64_t)(rng() % 129) - 64) / 4.0;
    return dbits(special_double_bits[rng() % COUNT(special_double_bits)]);
}

/* A random float, drawn like random_double. */
static float random_float(void)
{
    uint64_t pick = rng() % 10;
    float sign = (rng() & 1) ? -1.0f : 1.0f;

    if (pick < 3)
        return fbits((uint32_t)rng());
    if (pick < 6)
        return sign * (1.0f + (float)(rng() >> 40) * 0x1p-24f) * ldexpf(1.0f, (int)(rng() % 41) - 20);
    if (pick < 8)
        return sign * 16.0f * (float)unit();
    if (pick < 9)
        return (float)((int64_t)(rng() % 129) - 64) / 4.0f;
    return fbits(special_float_bits[rng() % COUNT(special_float_bits)]);
}

/* A random integer: random bits (40%), in [-100, 100] (40%), a special value (20%). The
   caller converts it to the parameter's type. */
static int64_t random_int(void)
{
    uint64_t pick = rng() % 5;

    if (pick < 2)
        return (int64_t)rng();
    if (pick < 4)
        return (int64_t)(rng() % 201) - 100;
    return special_int[rng() % COUNT(special_int)];
}

/* ---- Equality of results ---- */

enum eq_mode { EQ_BITS, EQ_IEEE, EQ_ULP, EQ_ABS, EQ_REL };

/* The position of a non-NaN double on the number line in ulps (-0 and +0 both 0). */
static int64_t ordinal_double(double d)
{
    uint64_t u = bitsd(d);

    return (u >> 63) ? -(int64_t)(u & 0x7fffffffffffffffull) : (int64_t)u;
}

static int64_t ordinal_float(float f)
{
    uint32_t u = bitsf(f);

    return (u >> 31) ? -(int64_t)(u & 0x7fffffffu) : (int64_t)u;
}

/* Whether results x and y (widened; ox, oy their ordinals) are equal under the mode. For a
   tolerance: two NaNs are equal, one NaN is not, equal values (same infinity, +-0) are, an
   infinity is not near a finite value, otherwise |x - y| (in long double) <= tol, or <= tol *
   max(|x|, |y|), or the ulp distance <= tol. */
static int fp_equal(enum eq_mode mode, double tol, long double x, long double y, int64_t ox,
                    int64_t oy)
{
    if (isnan(x) || isnan(y))
        return isnan(x) && isnan(y);
    if (x == y)
        return 1;
    if (isinf(x) || isinf(y))
        return 0;
    switch (mode) {
    case EQ_ULP:
        return (ox > oy ? (uint64_t)ox - (uint64_t)oy : (uint64_t)oy - (uint64_t)ox) <= (uint64_t)tol;
    case EQ_ABS:
        return fabsl(x - y) <= tol;
    case EQ_REL:
        return fabsl(x - y) <= tol * fmaxl(fabsl(x), fabsl(y));
    default:
        return 0;
    }
}

static int same_double(enum eq_mode mode, double tol, double a, double b)
{
    if (mode == EQ_BITS)
        return memcmp(&a, &b, sizeof a) == 0;
    return fp_equal(mode, tol, a, b, ordinal_double(a), ordinal_double(b));
}

static int same_float(enum eq_mode mode, double tol, float a, float b)
{
    if (mode == EQ_BITS)
        return memcmp(&a, &b, sizeof a) == 0;
    return fp_equal(mode, tol, a, b, ordinal_float(a), ordinal_float(b));
}

/* ---- Printing ---- */

static void show_double(double d)
{
    uint64_t u = bitsd(d);

    if (isnan(d))
        printf("%sNaN(%s, payload 0x%" PRIx64 ", bits 0x%016" PRIx64 ")", (u >> 63) ? "-" : "",
               (u >> 51) & 1 ? "quiet" : "signaling", (uint64_t)(u & 0x7ffffffffffffull), u);
    else
        printf("%.17g (%a, bits 0x%016" PRIx64 "%s)", d, d, u,
               fpclassify(d) == FP_SUBNORMAL ? ", subnormal" : "");
}

static void show_float(float f)
{
    uint32_t u = bitsf(f);

    if (isnan(f))
        printf("%sNaN(%s, payload 0x%" PRIx32 ", bits 0x%08" PRIx32 ")", (u >> 31) ? "-" : "",
               (u >> 22) & 1 ? "quiet" : "signaling", u & 0x3fffffu, u);
    else
        printf("%.9g (%a, bits 0x%08" PRIx32 "%s)", (double)f, (double)f, u,
               fpclassify(f) == FP_SUBNORMAL ? ", subnormal" : "");
}

static void show_int(int64_t v) { printf("%" PRId64, v); }
static void show_uint(uint64_t v) { printf("%" PRIu64, v); }
