/* Internal byte-order helpers of host_io's binary map formats (phimap, MRC/CCP4): 4-byte
 * integers and IEEE reals put little-endian and got in either byte order. */
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

#endif /* HOST_IO_BYTES_H */
