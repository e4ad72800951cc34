/* Mixed precision's right-hand side in 16 bits, the top 16 bits of a float (bfloat16: 8
 * significant bits, 7 stored): the correction sweeps read 2 bytes per point for it instead of 4.
 * With salt, its lowest mantissa bit carries the point's salt flag, so that those sweeps read no
 * flag byte either; the value then keeps 7 significant bits.  Its relative rounding (at most 2^-8,
 * 2^-7 with salt) only makes each refinement step's inner solve a little less exact; the residual
 * itself is recomputed in double at every fold, so the answer's accuracy does not depend on it
 * (docs/SOLVER.md, "mixed").  The CPU and CUDA backends round with these same integer
 * operations, so they agree bit for bit. */
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

/** The bits of a stored rhs that hold its value: all 16 without salt, the upper 15 with salt
 *  (the lowest is the flag). */
#define DG_RHS_VALUE_PLAIN 0xffffu
#define DG_RHS_VALUE_SALT  0xfffeu

DG_RHS_FN unsigned dg_rhs_value_mask(int has_salt) {
    return has_salt ? DG_RHS_VALUE_SALT : DG_RHS_VALUE_PLAIN;
}

/** float -> the stored rhs, rounded to nearest (ties to even): to 8 significant bits without
 *  salt; with salt (has_salt) to 7, the point's flag (salt, 0 or 1) in the lowest bit. */
DG_RHS_FN dg_rhs16 dg_rhs_encode(float value, int has_salt, int salt) {
    uint32_t bits = dg_float_bits(value);
    if (!has_salt) {
        bits += 0x7fffu + ((bits >> 16) & 1u);
        return (dg_rhs16)(bits >> 16);
    }
    bits += 0xffffu + ((bits >> 17) & 1u);
    return (dg_rhs16)(((bits >> 17) << 1) | (uint32_t)(salt & 1));
}

/** The stored rhs's value (exact), value_mask = dg_rhs_value_mask(has_salt). */
DG_RHS_FN float dg_rhs_decode(dg_rhs16 stored, unsigned value_mask) {
    return dg_bits_float((uint32_t)(stored & value_mask) << 16);
}

/** The stored rhs's salt flag (0 without salt). */
DG_RHS_FN int dg_rhs_salt(dg_rhs16 stored, unsigned value_mask) {
    return (int)(stored & ~value_mask & 1u);
}

/** |value| as float bits (non-negative floats order as their bits): the step's largest |rhs|. */
DG_RHS_FN uint32_t dg_rhs_magnitude_bits(dg_rhs16 stored, unsigned value_mask) {
    return (uint32_t)(stored & value_mask & 0x7fffu) << 16;
}

#endif /* DG_REFINE_RHS_H */
