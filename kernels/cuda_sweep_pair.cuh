/* The sweep of one colour with two planes per barrier: the variant of dg_sweep_kernel
 * (cuda_sweep.cuh; same thread layout, tiles, chunks and arithmetic) that the autotune also
 * times (cuda_shape.cu).
 *
 * dg_sweep_kernel exchanges each plane's O values through shared memory and waits at one
 * barrier per plane; between barriers a thread has little independent work.  Plane z + 1's C
 * points need only O values (of planes z to z + 2), never plane z's new C values, so this kernel
 * stores the O values of planes z and z + 1, waits at ONE barrier, then updates both planes:
 * half the barriers, twice the loads in flight per barrier.  Each plane's update is the same
 * expression in the same order as in dg_sweep_kernel, so the results are the same bits.
 * dg_sweep_kernel itself is kept as it was measured (docs/PERFORMANCE.md).
 */
#ifndef DG_CUDA_SWEEP_PAIR_CUH
#define DG_CUDA_SWEEP_PAIR_CUH

#include "cuda_sweep.cuh"

/* Float sweeps with salt flags or mixed's rhs (unmeasured) are held to 32 registers, as the
   Poisson ones need anyway, so that a 1024-thread block runs two to an SM: with 37-48 registers
   they ran at 62 % occupancy and two planes per barrier did not pay; at 32 (spills: none at depth
   1, 8-24 bytes at depth 2) the autotune keeps 66x15 depth 1 with two planes, 0.334 instead of
   0.351 ms per float salt iteration and 0.310 instead of 0.331 per correction iteration at 385^3
   (H100, docs/PERFORMANCE.md run 29).  0 blocks: no minimum (the compiler's own choice). */
template <typename T, int MODE, bool MEASURE>
constexpr int dg_pair_min_blocks = sizeof(T) == 4 && !MEASURE &&
                                           (MODE == DG_SWEEP_PB || MODE == DG_SWEEP_RHS)
                                       ? 2
                                       : 0;

/* DEPTH: barriers ahead that each load is issued: each thread keeps 4 * DEPTH loads in flight
   across a barrier (2 * DEPTH planes of C values and the O values they need). */
template <typename T, int MODE, bool MEASURE, int DEPTH>
__global__ void __launch_bounds__(1024, (dg_pair_min_blocks<T, MODE, MEASURE>))
    dg_sweep_pair_kernel(const dg_sweep_params<T> p) {
    constexpr int PLANES = 2;
    extern __shared__ __align__(16) unsigned char dg_sweep_shared[];
    /* 2 sets of PLANES planes, double-buffered: a set is rewritten only after the next barrier,
       which every thread reaches after reading it. */
    typedef typename dg_sweep_storage<T, MODE>::type V;
    V *const exchange = reinterpret_cast<V *>(dg_sweep_shared);
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

    /* Everything that depends on the plane only through its parity, for the planes z0 + 2m + j
       (j = 0, 1): whether this thread updates the C point and loads the O point there, and their
       half-indices in plane z0 + j; plane z0 + 2m + j's are m * plane further on (the full index
       moves by 2 m planes).  The loop below then does no index arithmetic but one addition per
       plane: before, recomputing these from z for every load and store made the float and the
       correction sweeps issue-bound (ncu at 385^3: about 150 instructions per updated point). */
    const int a0 = c_offset(z0);
    const bool upd0 = updates(z0), upd1 = updates(z0 + 1);
    const bool oval0 = loads && 2 * u + 1 - a0 <= p.nx - 1;
    const bool oval1 = loads && 2 * u + a0 <= p.nx - 1;
    const unsigned c0 = c_index(z0), c1 = c_index(z0 + 1);
    const unsigned o0 = (row + 1u - (unsigned)a0 + p.plane * (unsigned)z0) >> 1;
    const unsigned o1 = (row + (unsigned)a0 + p.plane * (unsigned)(z0 + 1)) >> 1;

    dg_change_acc acc = {0.0, 0.0, 0};
    const T scale = dg_sweep_scale<T, MODE>(p);
    /* Update the C point at half-index h (a: its x is 2u + a) from its O neighbours: below, here,
       above (registers) and the in-plane ones of the other threads (slot: this plane's exchanged
       O values). */
    auto update = [&](unsigned h, int a, const V *slot, V below, V here, V above, V c,
                      unsigned char f, T q) {
        const T x_minus = dg_stored_value<T>(a ? here : slot[self - 1]);
        const T x_plus = dg_stored_value<T>(a ? slot[self + 1] : here);
        T sum = x_minus + x_plus + dg_stored_value<T>(slot[self - bx]) +
                dg_stored_value<T>(slot[self + bx]) + dg_stored_value<T>(below) +
                dg_stored_value<T>(above);
        T weight = p.w0;
        if (dg_sweep_salt<MODE>(p, f, q)) {
            weight = p.w1;
            if (MODE == DG_SWEEP_NONLINEAR) sum = sum + q;
        }
        if (MODE == DG_SWEEP_RHS) sum = sum + dg_rhs_release(q, p.rhs_mask) * scale;
        const T updated = p.keep * dg_stored_value<T>(c) + weight * sum;
        const V stored = dg_store_value<V>(updated);
        cur[h] = stored;
        if (MEASURE && !(f & 2) && (p.stride == 1 || (h - 1u) % (unsigned)p.stride == 0))
            dg_acc_add(acc, dg_sweep_delta<T, MODE>(p, stored, c));
    };

    /* o[k] = O value of plane z - 1 + k; c[k], f[k], q[k] = C point of plane z + k. */
    constexpr int NC = PLANES * DEPTH, NO = NC + 2;
    V o[NO], c[NC];
    T q[NC];
    unsigned char f[NC];
#pragma unroll
    for (int k = 0; k < NO; ++k)
        o[k] = z0 - 1 + k <= z1 + 1 ? load_other(z0 - 1 + k) : V(0);
#pragma unroll
    for (int k = 0; k < NC; ++k)
        load_c(z0 + k, c[k], f[k], q[k]);

    unsigned moved = 0; /* m * plane for z = z0 + 2m */
    const unsigned ahead = (unsigned)DEPTH * p.plane;
    for (int z = z0; z <= z1; z += PLANES, moved += p.plane) {
        /* Prefetch planes z + NC .. z + NC + 1 (C) and z + NC + 1 .. z + NC + 2 (O; planes
           z0 + 2(m + DEPTH) + 1 and z0 + 2(m + DEPTH + 1)) before waiting at the barrier. */
        V o_next[PLANES], c_next[PLANES];
        T q_next[PLANES];
        unsigned char f_next[PLANES];
        o_next[0] = z + NC <= z1 && oval1 ? __ldg(other + (o1 + moved + ahead)) : V(0);
        o_next[1] =
            z + NC + 1 <= z1 && oval0 ? __ldg(other + (o0 + moved + ahead + p.plane)) : V(0);
#pragma unroll
        for (int j = 0; j < PLANES; ++j) {
            c_next[j] = V(0), f_next[j] = 0, q_next[j] = T(0);
            if (z + NC + j <= z1 && (j ? upd1 : upd0))
                load_c_at((j ? c1 : c0) + moved + ahead, c_next[j], f_next[j], q_next[j]);
        }

        V *const set = exchange + ((z / PLANES) & 1) * (PLANES * plane_slots);
#pragma unroll
        for (int j = 0; j < PLANES; ++j)
            set[j * plane_slots + self] = o[1 + j];
        __syncthreads();
        if (upd0) update(c0 + moved, a0, set, o[0], o[1], o[2], c[0], f[0], q[0]);
        if (z + 1 <= z1 && upd1)
            update(c1 + moved, a0 ^ 1, set + plane_slots, o[1], o[2], o[3], c[1], f[1], q[1]);
#pragma unroll
        for (int k = 0; k < NO - PLANES; ++k)
            o[k] = o[k + PLANES];
#pragma unroll
        for (int j = 0; j < PLANES; ++j)
            o[NO - PLANES + j] = o_next[j];
#pragma unroll
        for (int k = 0; k < NC - PLANES; ++k)
            c[k] = c[k + PLANES], f[k] = f[k + PLANES], q[k] = q[k + PLANES];
#pragma unroll
        for (int j = 0; j < PLANES; ++j)
            c[NC - PLANES + j] = c_next[j], f[NC - PLANES + j] = f_next[j],
                            q[NC - PLANES + j] = q_next[j];
    }
    if (MEASURE) {
        const int block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
        dg_block_reduce_store(acc, p.partials + block);
    }
}

#endif /* DG_CUDA_SWEEP_PAIR_CUH */
