/* Mixed precision's correction e in IEEE binary16 (half), scaled by a power of two: the
 * correction sweeps read and write 2 bytes per point for it instead of 4 (docs/SOLVER.md,
 * "mixed").  Each refinement step stores e * scale, with scale = 2^k chosen from the step's
 * right-hand side so that max |rhs| * scale lies in [2^-6, 2^-5): the sweeps add rhs * scale
 * (exact: a power of two) and the fold adds e / scale to the double iterate.  That leaves e room
 * to grow 2^21 times the largest rhs before binary16's largest value (65504); below 2^-8 of the
 * largest rhs values fall into binary16's subnormal range, whose steps (2^-24 after scaling) are
 * 2^-18 of the largest rhs, far below the 2^-11 relative rounding of the larger values.
 *
 * Binary16 keeps 11 significant bits: each update of e is rounded to 2^-11 of its size, and e
 * (the change since the last fold, a few tens of the per-iteration change) stays far below the
 * iterate's remaining error, so the SOR follows the double iterates as closely as with a float
 * correction (measured: iteration counts and energies unchanged, docs/SOLVER.md).
 *
 * Both backends round as IEEE 754 (to nearest, ties to even, subnormal results, overflow to
 * infinity): the GPU with its conversion instructions, the CPU with the integer operations below
 * (test_refine_half checks them against an exhaustive nearest-value search and, where the compiler
 * has one, its _Float16 conversion), so they agree bit for bit (test_gpu_mixed).  The software
 * path is too slow for the sweeps' inner loop on the GPU (mixed's iterations took 0.40 s with it
 * at 385^3 on an H100, against 0.29 s with the instructions and 0.30 s with a float correction). */
#ifndef DG_REFINE_HALF_H
#define DG_REFINE_HALF_H

#include <stdint.h>
#include <string.h>

#include "refine_rhs.h" /* dg_float_bits, dg_bits_float */

#if defined(__CUDACC__)
#include <cuda_fp16.h>
#define DG_HALF_FN static inline __host__ __device__
#else
#define DG_HALF_FN static inline
#endif

typedef uint16_t dg_half16;

/** float -> binary16, rounded to nearest, ties to even (subnormal results, overflow to
 *  infinity and NaN as IEEE 754). */
DG_HALF_FN dg_half16 dg_half_encode(float value) {
#if defined(__CUDA_ARCH__) /* the conversion instruction: the same IEEE rounding */
    return __half_as_ushort(__float2half_rn(value));
#endif
    uint32_t x = dg_float_bits(value);
    const uint32_t sign = (x >> 16) & 0x8000u;
    x &= 0x7fffffffu;
    if (x >= 0x7f800000u) return (dg_half16)(sign | (x > 0x7f800000u ? 0x7e00u : 0x7c00u));
    if (x >= 0x477ff000u) return (dg_half16)(sign | 0x7c00u); /* >= 65520: infinity */
    if (x >= 0x38800000u) {                                   /* >= 2^-14: a normal half */
        const uint32_t h = x - 0x38000000u;                   /* exponent rebiased, 127 -> 15 */
        return (dg_half16)(sign | ((h + 0x0fffu + ((h >> 13) & 1u)) >> 13));
    }
    if (x < 0x33000000u) return (dg_half16)sign; /* < 2^-25 (2^-25 itself ties to 0) */
    /* subnormal half: k 2^-24, k = the significand shifted right by 126 - exponent (14..24) */
    const uint32_t shift = 126u - (x >> 23), m = (x & 0x7fffffu) | 0x800000u;
    uint32_t k = m >> shift;
    const uint32_t rest = m & ((1u << shift) - 1u), half = 1u << (shift - 1u);
    if (rest > half || (rest == half && (k & 1u))) ++k;
    return (dg_half16)(sign | k);
}

/** binary16 -> float (exact). */
DG_HALF_FN float dg_half_decode(dg_half16 h) {
#if defined(__CUDA_ARCH__)
    return __half2float(__ushort_as_half(h));
#endif
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0) { /* zero or subnormal: m 2^-24 */
        const float v = (float)m * 5.9604644775390625e-8f;
        return sign ? -v : v;
    }
    if (e == 31) return dg_bits_float(sign | 0x7f800000u | (m << 13));
    return dg_bits_float(sign | ((e + 112u) << 23) | (m << 13));
}

/** The value a float takes stored as binary16. */
DG_HALF_FN float dg_half_round(float value) {
    return dg_half_decode(dg_half_encode(value));
}

/** The step's scale 2^k from the largest |rhs| (as float bits: positive floats order as their
 *  bits), so that max |rhs| * scale lies in [2^-6, 2^-5); 1 when every rhs is 0 (or the largest
 *  is not a normal float), and within [2^-100, 2^100]. */
DG_HALF_FN float dg_half_scale(uint32_t max_bits) {
    const int exponent = (int)((max_bits >> 23) & 0xffu) - 127; /* max in [2^e, 2^(e+1)) */
    if (max_bits == 0 || exponent == -127 || exponent == 128) return 1.0f;
    int k = -6 - exponent;
    k = k < -100 ? -100 : k > 100 ? 100 : k;
    return dg_bits_float((uint32_t)(127 + k) << 23);
}

#endif /* DG_REFINE_HALF_H */
