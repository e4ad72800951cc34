/* The sweep of one colour with WIDTH pairs per thread: the variant of dg_sweep_kernel
 * (cuda_sweep.cuh; same tiles along y, chunks along z, tartan halo and arithmetic) that the
 * autotune also times (cuda_shape.cu).
 *
 * In dg_sweep_kernel a thread moves one O value and one C value per plane; with 4-byte (float)
 * or 2-byte (binary16 correction, 16-bit rhs) data that leaves too few bytes in flight per thread
 * to fill the DRAM bandwidth.  Here a block's tile along x is WIDTH times as wide and thread (tx,
 * ty) owns WIDTH pairs of it: per plane it loads WIDTH O values and WIDTH C values.  Two layouts:
 *  - adjacent (SEGMENTS false): pairs u = WIDTH * t + j (j = 0 .. WIDTH - 1, t = the thread's
 *    group index along x), consecutive half-indices; the x neighbours inside the thread's own
 *    pairs come from its registers, only pair 0's left and pair WIDTH - 1's right one from the
 *    threads beside it; the halo threads at the block's x edges load only the one pair their
 *    neighbour needs.  A warp's load of pair j reads every WIDTH-th value of a contiguous span
 *    (half-rows start at odd offsets, so no vector loads).
 *  - segments (SEGMENTS true): the tile is WIDTH segments of bx - 2 pairs, thread tx owning pair
 *    tx - 1 of each (a warp's loads contiguous, as in dg_sweep_kernel); every x neighbour comes
 *    through shared memory and every segment has its halo pairs.
 * The in-plane values are exchanged as WIDTH planes of one value per thread (slot j * threads +
 * thread: no bank conflicts).  Each point's update is the same expression in the same order as in
 * dg_sweep_kernel, so the results are the same bits.
 */
#ifndef DG_CUDA_SWEEP_WIDE_CUH
#define DG_CUDA_SWEEP_WIDE_CUH

#include "cuda_sweep.cuh"

/* DEPTH: planes loaded ahead of the plane being updated (as in dg_sweep_kernel); each thread
   keeps 2 * WIDTH * DEPTH loads in flight across the per-plane barrier. */
template <typename T, int MODE, bool MEASURE, int DEPTH, int WIDTH, bool SEGMENTS>
__global__ void __launch_bounds__(1024) dg_sweep_wide_kernel(const dg_sweep_params<T> p) {
    extern __shared__ __align__(16) unsigned char dg_sweep_shared[];
    /* 2 sets (double-buffered) of WIDTH planes of bx * by values. */
    typedef typename dg_sweep_storage<T, MODE>::type V;
    V *const exchange = reinterpret_cast<V *>(dg_sweep_shared);
    V *const cur = static_cast<V *>(p.cur);
    const V *const other = static_cast<const V *>(p.other);
    const int tx = threadIdx.x, ty = threadIdx.y, bx = blockDim.x, by = blockDim.y;
    /* pair j = u0 + j * step: x = 2 (u0 + j * step), 2 (u0 + j * step) + 1 */
    const int step = SEGMENTS ? bx - 2 : 1;
    const int u0 = SEGMENTS ? blockIdx.x * (bx - 2) * WIDTH + tx - 1
                            : WIDTH * (blockIdx.x * (bx - 2) + tx - 1);
    const int y = blockIdx.y * (by - 2) + ty;
    const int z0 = 1 + blockIdx.z * p.planes_per_chunk;
    const int z1 = min(p.nz - 2, z0 + p.planes_per_chunk - 1);
    const bool inner = tx > 0 && tx < bx - 1 && ty > 0 && ty < by - 1 && y >= 1 && y <= p.ny - 2;
    /* Full index of x = 2 u0 in row y of plane 0; a(z) = 1 when the C points are x = 2u + 1. */
    const unsigned row = 2u * (unsigned)u0 + (unsigned)p.nx * (unsigned)y;
    const int parity = (p.colour + y) & 1;
    const int self = ty * bx + tx, plane_slots = bx * by;

    auto c_offset = [&](int z) { return (parity + z) & 1; };
    /* Pair j's O value is needed by this thread (inner) or by a thread beside it (halo). */
    auto pair_loads = [&](int j) {
        return u0 + j * step >= 0 && y < p.ny &&
               (SEGMENTS || ((tx > 0 || j == WIDTH - 1) && (tx < bx - 1 || j == 0)));
    };
    auto load_other = [&](int z, int j) -> V {
        const int a = c_offset(z);
        if (!pair_loads(j) || 2 * (u0 + j * step) + 1 - a > p.nx - 1) return V(0);
        return __ldg(
            other +
            ((row + 2u * (unsigned)(j * step) + 1u - (unsigned)a + p.plane * (unsigned)z) >> 1));
    };
    auto updates = [&](int z, int j) {
        const int x = 2 * (u0 + j * step) + c_offset(z);
        return inner && x >= 1 && x <= p.nx - 2;
    };
    auto c_index = [&](int z, int j) {
        return (row + 2u * (unsigned)(j * step) + (unsigned)c_offset(z) + p.plane * (unsigned)z) >>
               1;
    };
    constexpr bool reads_flag = MODE != DG_SWEEP_POISSON || MEASURE;
    /* Loads of plane z's C value of pair j (with its flag and source), if this thread updates
       it. */
    auto load_c = [&](int z, int j, V &c, unsigned char &f, T &q) {
        c = V(0), f = 0, q = T(0);
        if (z > z1 || !updates(z, j)) return;
        const unsigned h = c_index(z, j);
        c = cur[h];
        if (reads_flag && (MODE != DG_SWEEP_RHS || p.flag)) f = __ldg(p.flag + h);
        if (MODE == DG_SWEEP_NONLINEAR) q = __ldg(p.qmap + h);
        if (MODE == DG_SWEEP_RHS) q = dg_rhs_hold<T>(__ldg(p.rhs + h));
    };

    /* o[k][j] = O value of pair j in plane z - 1 + k; c[k][j], f, q = its C point of plane
       z + k. */
    V o[DEPTH + 2][WIDTH], c[DEPTH][WIDTH];
    T q[DEPTH][WIDTH];
    unsigned char f[DEPTH][WIDTH];
#pragma unroll
    for (int k = 0; k < DEPTH + 2; ++k)
#pragma unroll
        for (int j = 0; j < WIDTH; ++j)
            o[k][j] = z0 - 1 + k <= z1 + 1 ? load_other(z0 - 1 + k, j) : V(0);
#pragma unroll
    for (int k = 0; k < DEPTH; ++k)
#pragma unroll
        for (int j = 0; j < WIDTH; ++j)
            load_c(z0 + k, j, c[k][j], f[k][j], q[k][j]);

    dg_change_acc acc = {0.0, 0.0, 0};
    const T scale = dg_sweep_scale<T, MODE>(p);
    for (int z = z0; z <= z1; ++z) {
        /* Prefetch plane z + DEPTH before waiting at the barrier. */
        V o_next[WIDTH], c_next[WIDTH];
        T q_next[WIDTH];
        unsigned char f_next[WIDTH];
#pragma unroll
        for (int j = 0; j < WIDTH; ++j) {
            o_next[j] = z + DEPTH <= z1 ? load_other(z + DEPTH + 1, j) : V(0);
            load_c(z + DEPTH, j, c_next[j], f_next[j], q_next[j]);
        }

        V *const set = exchange + (z & 1) * (WIDTH * plane_slots);
#pragma unroll
        for (int j = 0; j < WIDTH; ++j)
            set[j * plane_slots + self] = o[1][j];
        __syncthreads();
        const int a = c_offset(z);
#pragma unroll
        for (int j = 0; j < WIDTH; ++j) {
            if (!updates(z, j)) continue;
            const V *const slot = set + j * plane_slots;
            /* x - 1 is the left pair's O value (a = 0) or pair j's own (a = 1); x + 1 is pair
               j's own (a = 0) or the right pair's (a = 1).  Adjacent: the left pair is j - 1 (the
               left thread's last for j = 0), the right one j + 1 (the right thread's first for
               the last j); segments: the left and right threads' pair j. */
            const T x_minus =
                dg_stored_value<T>(a          ? o[1][j]
                                   : SEGMENTS ? slot[self - 1]
                                   : j > 0    ? o[1][j > 0 ? j - 1 : 0]
                                              : set[(WIDTH - 1) * plane_slots + self - 1]);
            const T x_plus = dg_stored_value<T>(!a              ? o[1][j]
                                                : SEGMENTS      ? slot[self + 1]
                                                : j < WIDTH - 1 ? o[1][j < WIDTH - 1 ? j + 1 : 0]
                                                                : set[self + 1]);
            T sum = x_minus + x_plus + dg_stored_value<T>(slot[self - bx]) +
                    dg_stored_value<T>(slot[self + bx]) + dg_stored_value<T>(o[0][j]) +
                    dg_stored_value<T>(o[2][j]);
            T weight = p.w0;
            if (dg_sweep_salt<MODE>(p, f[0][j], q[0][j])) {
                weight = p.w1;
                if (MODE == DG_SWEEP_NONLINEAR) sum = sum + q[0][j];
            }
            if (MODE == DG_SWEEP_RHS) sum = sum + dg_rhs_release(q[0][j], p.rhs_mask) * scale;
            const T updated = p.keep * dg_stored_value<T>(c[0][j]) + weight * sum;
            const unsigned h = c_index(z, j);
            const V stored = dg_store_value<V>(updated);
            cur[h] = stored;
            if (MEASURE && !(f[0][j] & 2) && (p.stride == 1 || (h - 1u) % (unsigned)p.stride == 0))
                dg_acc_add(acc, dg_sweep_delta<T, MODE>(p, stored, c[0][j]));
        }
#pragma unroll
        for (int k = 0; k < DEPTH + 1; ++k)
#pragma unroll
            for (int j = 0; j < WIDTH; ++j)
                o[k][j] = o[k + 1][j];
#pragma unroll
        for (int j = 0; j < WIDTH; ++j)
            o[DEPTH + 1][j] = o_next[j];
#pragma unroll
        for (int k = 0; k < DEPTH - 1; ++k)
#pragma unroll
            for (int j = 0; j < WIDTH; ++j)
                c[k][j] = c[k + 1][j], f[k][j] = f[k + 1][j], q[k][j] = q[k + 1][j];
#pragma unroll
        for (int j = 0; j < WIDTH; ++j)
            c[DEPTH - 1][j] = c_next[j], f[DEPTH - 1][j] = f_next[j], q[DEPTH - 1][j] = q_next[j];
    }
    if (MEASURE) {
        const int block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
        dg_block_reduce_store(acc, p.partials + block);
    }
}

#endif /* DG_CUDA_SWEEP_WIDE_CUH */
