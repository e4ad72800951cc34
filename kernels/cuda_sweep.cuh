/* The uniform-stencil sweep of one colour, Poisson, linear PB and nonlinear PB.
 *
 * Thread layout: a 2D block over x-y, marching along z.  Thread (tx, ty) owns the pair of grid
 * columns x = 2u, 2u+1 in row y.  In every plane one of the two is a point of the colour being
 * updated ("C") and the other a point of the other colour ("O"); they swap from plane to plane.
 * So, per plane, each thread loads one O value and updates one C value, and:
 *   - the z neighbours of its C point are its own O values of the planes below and above
 *     (kept in registers while marching);
 *   - one x neighbour is its own O value of this plane; the other x neighbour and the two y
 *     neighbours are the O values of the threads beside it, exchanged through shared memory.
 * In both colour arrays consecutive pairs have consecutive half-indices, so a warp's loads and
 * stores are contiguous.  Blocks overlap by one thread on each side ("tartan"): the outer
 * threads only load the halo.  Blocks along z (blockIdx.z) split the planes into chunks of about
 * 40, so that blocks in flight work at different depths (cuda_shape.cu).  Measurements and the
 * reasons for these choices: docs/PERFORMANCE.md.
 *
 * Arithmetic is the CPU backend's, operation for operation (sum x-, x+, y-, y+, z-, z+, then
 * keep * phi + w * sum), and the build disables FMA contraction, so both give the same bits.
 */
#ifndef DG_CUDA_SWEEP_CUH
#define DG_CUDA_SWEEP_CUH

#include "cuda_reduce.cuh"

/* DG_SWEEP_RHS: mixed precision's correction sweep, sum + rhs at every point (rhs = the
   residual / factor in 16 bits, cuda_refine.cu), the salt factor where the rhs's flag bit is set
   (refine_rhs.h). */
enum { DG_SWEEP_POISSON = 0, DG_SWEEP_PB = 1, DG_SWEEP_NONLINEAR = 2, DG_SWEEP_RHS = 3 };

template <typename T> struct dg_sweep_params {
    void *cur;                 /* colour being updated (dg_sweep_value<T, MODE>) */
    const void *other;         /* the other colour (read-only during the sweep) */
    const unsigned char *flag; /* PB: bit 0 salt; colour 1: bit 1 sparse point; else NULL (and
                                  in unmeasured correction sweeps) */
    const T *qmap;             /* nonlinear source of this colour */
    const dg_rhs16 *rhs;       /* DG_SWEEP_RHS: the right-hand side and salt flag (16 bits) */
    unsigned rhs_mask;         /* DG_SWEEP_RHS: its value bits (dg_rhs_value_mask) */
    unsigned plane;            /* nx * ny */
    int nx, ny, nz, colour, planes_per_chunk;
    T keep, w0, w1; /* 1 - omega, omega * factor[0], omega * factor[1] */
    int stride;     /* convergence sample stride (measured sweep only) */
    dg_cuda_partial *partials;
    const dg_refine_scale *scale; /* DG_SWEEP_RHS: the step's scale of the correction */
};

/* The colour arrays hold T, except in mixed's correction sweeps (DG_SWEEP_RHS, T = float): the
   correction times the step's scale in binary16 (refine_half.h).  Values stay in their stored
   form in registers and shared memory until the update, after the barrier (as the rhs below),
   and are converted there; the arithmetic is T's. */
template <typename T, int MODE> struct dg_sweep_storage { typedef T type; };
template <typename T> struct dg_sweep_storage<T, DG_SWEEP_RHS> { typedef dg_half16 type; };
template <typename T> __device__ __forceinline__ T dg_stored_value(T v) {
    return v;
}
template <typename T> __device__ __forceinline__ T dg_stored_value(dg_half16 v) {
    return (T)dg_half_decode(v);
}
template <typename V, typename T> __device__ __forceinline__ V dg_store_value(T v) {
    if constexpr (sizeof(V) == sizeof(dg_half16))
        return dg_half_encode((float)v);
    else
        return v;
}

/* Mixed's rhs is kept in the register of its point's q as loaded (the 16 bits, not yet a
   number) and converted only in the update, after the barrier: a conversion at the prefetch would
   make each thread wait there for the load, before the barrier (on an H100 at 385^3 the
   correction sweeps then took 0.45-0.59 ms per iteration against 0.30 for float Poisson ones,
   docs/PERFORMANCE.md run 29).  The value is the same bits either way. */
template <typename T> __device__ __forceinline__ T dg_rhs_hold(dg_rhs16 raw);
template <> __device__ __forceinline__ float dg_rhs_hold<float>(dg_rhs16 raw) {
    return __uint_as_float((unsigned)raw);
}
template <> __device__ __forceinline__ double dg_rhs_hold<double>(dg_rhs16 raw) {
    return __longlong_as_double((long long)raw);
}
__device__ __forceinline__ float dg_rhs_release(float held, unsigned mask) {
    return dg_rhs_decode((dg_rhs16)__float_as_uint(held), mask);
}
__device__ __forceinline__ double dg_rhs_release(double held, unsigned mask) {
    return (double)dg_rhs_decode((dg_rhs16)__double_as_longlong(held), mask);
}

/* Whether the salt factor applies at a point: bit 0 of its flag, except in mixed's correction
   sweeps, where the rhs carries it (refine_rhs.h) and the flags are not read (unless measured,
   for colour 1's sparse marks). */
__device__ __forceinline__ bool dg_rhs_held_salt(float held, unsigned mask) {
    return dg_rhs_salt((dg_rhs16)__float_as_uint(held), mask);
}
__device__ __forceinline__ bool dg_rhs_held_salt(double held, unsigned mask) {
    return dg_rhs_salt((dg_rhs16)__double_as_longlong(held), mask);
}
template <int MODE, typename T>
__device__ __forceinline__ bool dg_sweep_salt(const dg_sweep_params<T> &p, unsigned char f, T q) {
    if constexpr (MODE == DG_SWEEP_RHS)
        return dg_rhs_held_salt(q, p.rhs_mask);
    else
        return MODE != DG_SWEEP_POISSON && (f & 1);
}

/* The step's scale (mixed's correction sweeps; 1 otherwise, unused). */
template <typename T, int MODE>
__device__ __forceinline__ T dg_sweep_scale(const dg_sweep_params<T> &p) {
    if constexpr (MODE == DG_SWEEP_RHS)
        return (T)__ldg(&p.scale->scale);
    else
        return T(1);
}

/* A point's change over the sweep, as the convergence test counts it: the iterate's (the
   correction's over its scale in mixed's correction sweeps). */
template <typename T, int MODE, typename V>
__device__ __forceinline__ double dg_sweep_delta(const dg_sweep_params<T> &p, V stored, V old) {
    if constexpr (MODE == DG_SWEEP_RHS)
        return ((double)dg_stored_value<T>(stored) - (double)dg_stored_value<T>(old)) *
               __ldg(&p.scale->inv);
    else
        return (double)stored - (double)old;
}

/* A compile-time plane parity for the sweep's two-plane turns. */
template <int J> struct dg_parity { static constexpr int value = J; };

/* DEPTH: planes of C values (and the O values they need) loaded ahead of the plane being
   updated, so that each thread keeps 2 * DEPTH loads in flight across the per-plane barrier. */
template <typename T, int MODE, bool MEASURE, int DEPTH>
__global__ void __launch_bounds__(1024) dg_sweep_kernel(const dg_sweep_params<T> p) {
    extern __shared__ __align__(16) unsigned char dg_sweep_shared[];
    typedef typename dg_sweep_storage<T, MODE>::type V;
    V *const exchange = reinterpret_cast<V *>(dg_sweep_shared); /* 2 planes, double-buffered */
    V *const cur = static_cast<V *>(p.cur);
    const V *const other = static_cast<const V *>(p.other);
    const int tx = threadIdx.x, ty = threadIdx.y, bx = blockDim.x, by = blockDim.y;
    const int u = blockIdx.x * (bx - 2) + tx - 1; /* pair index: x = 2u, 2u + 1 */
    const int y = blockIdx.y * (by - 2) + ty;
    const int z0 = 1 + blockIdx.z * p.planes_per_chunk;
    const int z1 = min(p.nz - 2, z0 + p.planes_per_chunk - 1);
    const bool loads = u >= 0 && y < p.ny;
    const bool inner =
        loads && tx > 0 && tx < bx - 1 && ty > 0 && ty < by - 1 && y >= 1 && y <= p.ny - 2;
    /* Full index of x = 2u in row y of plane 0; a(z) = 1 when the C point is x = 2u + 1. */
    const unsigned row = 2u * (unsigned)u + (unsigned)p.nx * (unsigned)y;
    const int parity = (p.colour + y) & 1;
    const int self = ty * bx + tx, plane_slots = bx * by;

    auto c_offset = [&](int z) { return (parity + z) & 1; };
    auto load_other = [&](int z) -> V {
        const int a = c_offset(z);
        if (!loads || 2 * u + 1 - a > p.nx - 1) return V(0);
        return __ldg(other + ((row + 1u - (unsigned)a + p.plane * (unsigned)z) >> 1));
    };
    auto updates = [&](int z) {
        const int x = 2 * u + c_offset(z);
        return inner && x >= 1 && x <= p.nx - 2;
    };
    auto c_index = [&](int z) {
        return (row + (unsigned)c_offset(z) + p.plane * (unsigned)z) >> 1;
    };
    constexpr bool reads_flag = MODE != DG_SWEEP_POISSON || MEASURE;
    /* Loads of the C value at half-index h (with its flag and source). */
    auto load_c_at = [&](unsigned h, V &c, unsigned char &f, T &q) {
        c = cur[h];
        if (reads_flag && (MODE != DG_SWEEP_RHS || p.flag)) f = __ldg(p.flag + h);
        if (MODE == DG_SWEEP_NONLINEAR) q = __ldg(p.qmap + h);
        if (MODE == DG_SWEEP_RHS) q = dg_rhs_hold<T>(__ldg(p.rhs + h));
    };
    /* The same for plane z, if this thread updates it (zeros otherwise). */
    auto load_c = [&](int z, V &c, unsigned char &f, T &q) {
        c = V(0), f = 0, q = T(0);
        if (z > z1 || !updates(z)) return;
        load_c_at(c_index(z), c, f, q);
    };

    /* What depends on the plane only through its parity, for the planes z0 + 2m + j (j = 0, 1):
       whether this thread updates the C point and loads the O point there, and their
       half-indices in plane z0 + j (plane z0 + 2m + j's are m * plane further on).  The loop
       below takes two planes per turn, so that j is known at compile time in each, and does no
       index arithmetic but additions (as dg_sweep_pair_kernel, cuda_sweep_pair.cuh). */
    const int a0 = c_offset(z0);
    const bool upd[2] = {updates(z0), updates(z0 + 1)};
    const bool oval[2] = {loads && 2 * u + 1 - a0 <= p.nx - 1, loads && 2 * u + a0 <= p.nx - 1};
    const unsigned cfirst[2] = {c_index(z0), c_index(z0 + 1)};
    const unsigned ofirst[2] = {(row + 1u - (unsigned)a0 + p.plane * (unsigned)z0) >> 1,
                                (row + (unsigned)a0 + p.plane * (unsigned)(z0 + 1)) >> 1};

    /* o[k] = O value of plane z - 1 + k; c[k], f[k], q[k] = C point of plane z + k. */
    V o[DEPTH + 2], c[DEPTH];
    T q[DEPTH];
    unsigned char f[DEPTH];
#pragma unroll
    for (int k = 0; k < DEPTH + 2; ++k)
        o[k] = z0 - 1 + k <= z1 + 1 ? load_other(z0 - 1 + k) : V(0);
#pragma unroll
    for (int k = 0; k < DEPTH; ++k)
        load_c(z0 + k, c[k], f[k], q[k]);

    dg_change_acc acc = {0.0, 0.0, 0};
    const T scale = dg_sweep_scale<T, MODE>(p);
    /* Plane z = z0 + 2m + J; moved = m * plane. */
    auto step = [&](int z, unsigned moved, auto parity) {
        constexpr int J = decltype(parity)::value;
        /* Prefetch plane z + DEPTH (C) and z + DEPTH + 1 (O) before waiting at the barrier. */
        constexpr int JC = (J + DEPTH) & 1, JO = (J + DEPTH + 1) & 1;
        constexpr unsigned MC = (J + DEPTH) >> 1, MO = (J + DEPTH + 1) >> 1;
        const V o_next =
            z + DEPTH <= z1 && oval[JO] ? __ldg(other + (ofirst[JO] + moved + MO * p.plane)) : V(0);
        V c_next = V(0);
        T q_next = T(0);
        unsigned char f_next = 0;
        if (z + DEPTH <= z1 && upd[JC])
            load_c_at(cfirst[JC] + moved + MC * p.plane, c_next, f_next, q_next);

        V *const slot = exchange + (z & 1) * plane_slots;
        slot[self] = o[1];
        __syncthreads();
        if (upd[J]) {
            constexpr int flip = J;
            const int a = a0 ^ flip;
            const T x_minus = dg_stored_value<T>(a ? o[1] : slot[self - 1]);
            const T x_plus = dg_stored_value<T>(a ? slot[self + 1] : o[1]);
            T sum = x_minus + x_plus + dg_stored_value<T>(slot[self - bx]) +
                    dg_stored_value<T>(slot[self + bx]) + dg_stored_value<T>(o[0]) +
                    dg_stored_value<T>(o[2]);
            T weight = p.w0;
            if (dg_sweep_salt<MODE>(p, f[0], q[0])) {
                weight = p.w1;
                if (MODE == DG_SWEEP_NONLINEAR) sum = sum + q[0];
            }
            if (MODE == DG_SWEEP_RHS) sum = sum + dg_rhs_release(q[0], p.rhs_mask) * scale;
            const T updated = p.keep * dg_stored_value<T>(c[0]) + weight * sum;
            const unsigned h = cfirst[J] + moved;
            const V stored = dg_store_value<V>(updated);
            cur[h] = stored;
            if (MEASURE && !(f[0] & 2) && (p.stride == 1 || (h - 1u) % (unsigned)p.stride == 0))
                dg_acc_add(acc, dg_sweep_delta<T, MODE>(p, stored, c[0]));
        }
#pragma unroll
        for (int k = 0; k < DEPTH + 1; ++k)
            o[k] = o[k + 1];
        o[DEPTH + 1] = o_next;
#pragma unroll
        for (int k = 0; k < DEPTH - 1; ++k)
            c[k] = c[k + 1], f[k] = f[k + 1], q[k] = q[k + 1];
        c[DEPTH - 1] = c_next, f[DEPTH - 1] = f_next, q[DEPTH - 1] = q_next;
    };
    unsigned moved = 0;
    for (int z = z0; z <= z1; z += 2, moved += p.plane) {
        step(z, moved, dg_parity<0>());
        if (z + 1 <= z1) step(z + 1, moved, dg_parity<1>());
    }
    if (MEASURE) {
        const int block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
        dg_block_reduce_store(acc, p.partials + block);
    }
}

#endif /* DG_CUDA_SWEEP_CUH */
