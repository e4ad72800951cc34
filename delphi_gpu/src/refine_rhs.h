/* Mixed precision's right-hand side in bfloat16 (the top 16 bits of a float): the correction
 * sweeps read 2 bytes per point for it instead of 4.  Its 2^-9 relative rounding only makes each
 * refinement step's inner solve a little less exact; the residual itself is recomputed in double
 * at every fold, so the answer's accuracy does not depend on it (docs/SOLVER.md, "mixed").  The
 * CPU and CUDA backends round with these same integer operations, so they agree bit for bit. */
#ifndef DG_REFINE_RHS_H
#define DG_REFINE_RHS_H

#include <stdint.h>
#include <string.h>

#if defined(__CUDACC__)
#define DG_RHS_FN static inline __host__ __device__
#else
#define DG_RHS_FN static inline
#endif

typedef uint16_t dg_rhs16;

/** A float's bits and back (also refine_half.h's). */
DG_RHS_FN uint32_t dg_float_bits(float value) {
#if defined(__CUDA_ARCH__)
    return __float_as_uint(value);
#else
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    return bits;
#endif
}

DG_RHS_FN float dg_bits_float(uint32_t bits) {
#if defined(__CUDA_ARCH__)
    return __uint_as_float(bits);
#else
    float value;
    memcpy(&value, &bits, sizeof value);
    return value;
#endif
}

/** float -> bfloat16, rounded to nearest, ties to even. */
DG_RHS_FN dg_rhs16 dg_rhs_encode(float value) {
    uint32_t bits = dg_float_bits(value);
    bits += 0x7fffu + ((bits >> 16) & 1u);
    return (dg_rhs16)(bits >> 16);
}

/** bfloat16 -> float (exact). */
DG_RHS_FN float dg_rhs_decode(dg_rhs16 stored) {
    return dg_bits_float((uint32_t)stored << 16);
}

#endif /* DG_REFINE_RHS_H */
