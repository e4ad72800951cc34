/* Mixed precision's binary16 correction (refine_half.h): the rounding is IEEE 754's (nearest,
 * ties to even, subnormals, overflow to infinity), the same on every compiler, and the step's
 * scale puts the largest rhs in [2^-6, 2^-5).  Its 16-bit rhs (refine_rhs.h): rounded to nearest
 * (ties to even) with 8 significant bits, or 7 and the salt flag in the lowest bit, which the
 * value and the magnitude leave out. */
#include <stdint.h>
#include <string.h>

#include "dg_check.h"
#include "refine_half.h"
#include "refine_rhs.h"

static float from_bits(uint32_t b) {
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

static uint32_t to_bits(float f) {
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

/* The nearest binary16 by search over the finite values (ties to the even one), for |x| < 65520. */
static dg_half16 nearest(float x) {
    const uint16_t sign = x < 0.0f ? 0x8000u : 0u;
    const double a = fabs((double)x);
    uint16_t best = 0;
    double best_d = a;
    for (uint16_t k = 1; k < 0x7c00u; ++k) {
        const double d = fabs(a - (double)dg_half_decode(k));
        if (d < best_d || (d == best_d && !(k & 1u))) best = k, best_d = d;
    }
    return (dg_half16)(sign | best);
}

int main(void) {
    /* Every finite binary16 decodes exactly and encodes back to itself. */
    int round_trip = 1;
    for (uint32_t h = 0; h < 0x10000u; ++h) {
        if ((h & 0x7c00u) == 0x7c00u && (h & 0x3ffu)) continue; /* NaN */
        if (dg_half_encode(dg_half_decode((dg_half16)h)) != h) round_trip = 0;
    }
    CHECK(round_trip, "binary16 -> float -> binary16 is the identity");
    CHECK(dg_half_decode(0x3c00u) == 1.0f && dg_half_decode(0x7bffu) == 65504.0f &&
          dg_half_decode(0x0001u) == 5.9604644775390625e-8f &&
          dg_half_decode(0x0400u) == 6.103515625e-5f);

    /* Rounding against an exhaustive nearest-value search: normal and subnormal results, ties. */
    const float cases[] = {1.0f + 1.0f / 2048.0f,         /* tie: to even (1.0) */
                           1.0f + 3.0f / 2048.0f,         /* tie: to even (up) */
                           1.0f + 1.0f / 2048.0f + 1e-7f, /* just above a tie */
                           3.0e-8f,                       /* 2^-25 and a bit: up to 2^-24 */
                           2.9802322387695312e-8f,        /* 2^-25: tie to 0 */
                           8.940696716308594e-8f,         /* 1.5 2^-24: tie to 2^-23 */
                           6.1e-5f,
                           6.0975e-5f,
                           3.3e-5f, /* near 2^-14 and below */
                           65504.0f,
                           65519.0f,
                           1234.5678f,
                           -0.3333333f,
                           1e-6f,
                           -7.77e-7f};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
        CHECK(dg_half_encode(cases[i]) == nearest(cases[i]),
              "encode(%.9g) = 0x%04x, nearest 0x%04x", (double)cases[i], dg_half_encode(cases[i]),
              nearest(cases[i]));
    int searched = 1;
    uint32_t state = 12345u;
    for (int i = 0; i < 2000; ++i) { /* random magnitudes from 2^-26 to 2^16 */
        state = state * 1664525u + 1013904223u;
        const uint32_t exponent = 101u + (state >> 8) % 42u, mantissa = (state * 2654435761u) >> 9;
        const float x = from_bits((exponent << 23) | mantissa | (state & 0x80000000u));
        if (fabsf(x) >= 65520.0f) continue;
        if (dg_half_encode(x) != nearest(x)) searched = 0;
    }
    CHECK(searched, "encode = the nearest binary16 (ties to even) for 2000 random floats");
    CHECK(dg_half_encode(65520.0f) == 0x7c00u && dg_half_encode(-1e9f) == 0xfc00u,
          "overflow to infinity");
    CHECK(dg_half_encode(from_bits(0x7fc00000u)) == 0x7e00u, "NaN stays NaN");
    CHECK(dg_half_encode(-0.0f) == 0x8000u && dg_half_encode(1e-30f) == 0u);
#if defined(__FLT16_MAX__)
    /* The compiler's own conversion, where it has one, over a spread of float bit patterns. */
    int same = 1;
    for (uint64_t b = 0; b < 0x100000000ull; b += 9973u) {
        const float x = from_bits((uint32_t)b);
        if (x != x) continue;
        const _Float16 h = (_Float16)x;
        uint16_t hb;
        memcpy(&hb, &h, sizeof hb);
        if (dg_half_encode(x) != hb) same = 0;
    }
    CHECK(same, "encode = the compiler's _Float16 conversion");
#endif

    /* The step's scale: the largest rhs times scale in [2^-6, 2^-5), a power of two. */
    const float maxima[] = {1.0f, 3.0e-9f, 123456.0f, 1.0e-30f, 0.015625f};
    for (size_t i = 0; i < sizeof maxima / sizeof maxima[0]; ++i) {
        const float s = dg_half_scale(to_bits(maxima[i]));
        const float scaled = maxima[i] * s;
        CHECK(scaled >= 0.015625f && scaled < 0.03125f && (to_bits(s) & 0x7fffffu) == 0,
              "scale for %g: %g", (double)maxima[i], (double)s);
    }
    CHECK(dg_half_scale(0u) == 1.0f && dg_half_scale(0x7f800000u) == 1.0f);

    /* The rhs: the nearest value of `bits` significant bits (frexp's mantissa in [0.5, 1) times
       2^bits, rounded to the even integer on a tie by rint), for random normal floats. */
    uint32_t seed = 12345u;
    int rhs_ok = 1;
    for (int i = 0; i < 200000 && rhs_ok; ++i) {
        seed = seed * 1664525u + 1013904223u;
        const float x = from_bits((seed & 0x80ffffffu) | ((64u + (seed >> 25)) << 23));
        for (int has_salt = 0; has_salt < 2; ++has_salt)
            for (int salt = 0; salt <= has_salt; ++salt) {
                const int bits = has_salt ? 7 : 8;
                int e;
                const double m = frexp((double)x, &e);
                const float want = (float)ldexp(rint(ldexp(m, bits)), e - bits);
                const unsigned mask = dg_rhs_value_mask(has_salt);
                const dg_rhs16 r = dg_rhs_encode(x, has_salt, salt);
                const float got = dg_rhs_decode(r, mask);
                if (got != want || dg_rhs_salt(r, mask) != salt ||
                    dg_rhs_magnitude_bits(r, mask) != (to_bits(got) & 0x7fffffffu)) {
                    CHECK(0, "rhs of %.9g (salt %d of %d): %.9g, want %.9g, flag %d", (double)x,
                          salt, has_salt, (double)got, (double)want, dg_rhs_salt(r, mask));
                    rhs_ok = 0;
                }
            }
    }
    CHECK(rhs_ok, "rhs = the nearest value of 8 (7 with salt) significant bits, flag kept apart");
    return dg_check_report("test_refine_half");
}
