/* Internal byte-order helpers of host_io's binary formats (phimap, dielectric map, MRC/CCP4):
 * 4-byte integers and IEEE reals put little-endian and got in either byte order. */
#ifndef HOST_IO_BYTES_H
#define HOST_IO_BYTES_H

#include <stdint.h>
#include <string.h>

static inline void io_put_u32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)(v & 0xff);
    p[1] = (unsigned char)(v >> 8 & 0xff);
    p[2] = (unsigned char)(v >> 16 & 0xff);
    p[3] = (unsigned char)(v >> 24 & 0xff);
}

static inline void io_put_f32(unsigned char *p, float f) {
    uint32_t v;
    memcpy(&v, &f, 4);
    io_put_u32(p, v);
}

static inline uint32_t io_get_u32(const unsigned char *p, int big_endian) {
    if (big_endian)
        return (uint32_t)p[3] | (uint32_t)p[2] << 8 | (uint32_t)p[1] << 16 | (uint32_t)p[0] << 24;
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline float io_get_f32(const unsigned char *p, int big_endian) {
    uint32_t v = io_get_u32(p, big_endian);
    float f;
    memcpy(&f, &v, 4);
    return f;
}

/* An IEEE real*8 in either byte order. */
static inline double io_get_f64(const unsigned char *p, int big_endian) {
    const uint64_t hi = io_get_u32(p + (big_endian ? 0 : 4), big_endian);
    const uint64_t lo = io_get_u32(p + (big_endian ? 4 : 0), big_endian);
    const uint64_t v = hi << 32 | lo;
    double d;
    memcpy(&d, &v, 8);
    return d;
}

#endif /* HOST_IO_BYTES_H */
