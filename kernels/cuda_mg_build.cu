/* The multigrid hierarchy on the device: the salt map, the symmetrising scale D and the
 * Galerkin aggregation levels, by the same formulas in the same order as dg_mg_build
 * (delphi_gpu/src/mg/mg_hierarchy.c), so both backends precondition with the same operators. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_mg.cuh"

namespace {

struct fine_coefficients {
    double f0, f1;
    long long h0; /* the salt map's split layout (split_index) */
    const unsigned char *salt;
    const int *slot; /* 2k + colour of the boundary entry at a full index, or -1 */
    const double *weight0, *weight1;
};

__device__ __forceinline__ double coefficient(const fine_coefficients &fc, long long w, int f) {
    double value = fc.salt[split_index(fc.h0, w)] ? fc.f1 : fc.f0;
    const int s = fc.slot[w];
    if (s >= 0) value += (s & 1 ? fc.weight1 : fc.weight0)[6LL * (s >> 1) + f];
    return value;
}

/* The salt map in the split layout: DelPhi's flags of colour 0, then those of colour 1, as 0/1. */
__global__ void k_salt_map(long long count, long long h0, const unsigned char *flag0,
                           const unsigned char *flag1, unsigned char *salt) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count;
         i += (long long)gridDim.x * blockDim.x)
        salt[i] = (i < h0 ? flag0[i] : flag1[i - h0]) != 0;
}

__global__ void k_slot(int count, const int *index, int colour, int *slot) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < count) slot[2LL * index[k] + colour] = 2 * k + colour;
}

/* plane[y + ny z] = D(1, y, z): first the line x = y = 1 (one block), then each plane's x = 1
   line (a block per z).  The products along a line are sequential (the host's order, so the
   same bits), but their coefficients are not: a block reads a chunk of MG_THREADS of them in
   parallel into shared memory and one thread then multiplies along the chunk.  (One thread per
   line reading the coefficients itself waited for two dependent loads per step: 0.2 ms for the
   line and 0.5 ms for the planes at 385^3.) */
__global__ void __launch_bounds__(MG_THREADS)
    k_scale_line(grid_dims g, fine_coefficients fc, double *plane) {
    __shared__ double ratio[MG_THREADS];
    double d = 1.0;
    for (int z0 = 1; z0 < g.nz - 1; z0 += MG_THREADS) {
        const int z = z0 + threadIdx.x;
        if (z > 1 && z < g.nz - 1) {
            const long long w = 1 + g.sy + g.sz * z;
            ratio[threadIdx.x] = coefficient(fc, w - g.sz, 5) / coefficient(fc, w, 4);
        }
        __syncthreads();
        if (threadIdx.x == 0)
            for (int k = 0; k < MG_THREADS && z0 + k < g.nz - 1; ++k) {
                if (z0 + k > 1) d *= ratio[k];
                plane[(long long)g.ny * (z0 + k) + 1] = d;
            }
        __syncthreads();
    }
}

__global__ void __launch_bounds__(MG_THREADS)
    k_scale_planes(grid_dims g, fine_coefficients fc, double *plane) {
    __shared__ double above[MG_THREADS], own[MG_THREADS];
    const int z = 1 + blockIdx.x;
    if (z >= g.nz - 1) return;
    double v = plane[(long long)g.ny * z + 1];
    for (int y0 = 2; y0 < g.ny - 1; y0 += MG_THREADS) {
        const int y = y0 + threadIdx.x;
        if (y < g.ny - 1) {
            const long long w = 1 + g.sy * y + g.sz * z;
            above[threadIdx.x] = coefficient(fc, w - g.sy, 3);
            own[threadIdx.x] = coefficient(fc, w, 2);
        }
        __syncthreads();
        if (threadIdx.x == 0)
            for (int k = 0; k < MG_THREADS && y0 + k < g.ny - 1; ++k) {
                v = v * above[k] / own[k];
                plane[(long long)g.ny * z + y0 + k] = v;
            }
        __syncthreads();
    }
}

/* Along every row: D(x) = D(x - 1) * c(x - 1, x+) / c(x, x-), x ascending, the same products in
   the same order as the host's.  A block takes MG_SCALE_ROWS rows and walks them in chunks of
   MG_SCALE_ROWS columns: its warps read the coefficients of a chunk (consecutive x: coalesced) into
   shared memory as ratios, one thread per row multiplies along its row of the chunk, and the warps
   write the chunk's D back coalesced.  (One thread per row reading the grid itself made each warp
   touch 32 rows per step: 7 ms at 385^3.) */
#define MG_SCALE_ROWS 32
__global__ void __launch_bounds__(MG_THREADS)
    k_scale_rows(grid_dims g, fine_coefficients fc, const double *plane, float *dscale, int *bad) {
    __shared__ double ratio[MG_SCALE_ROWS][MG_SCALE_ROWS + 1];
    __shared__ float scale[MG_SCALE_ROWS][MG_SCALE_ROWS + 1];
    const long long rows = (long long)(g.ny - 2) * (g.nz - 2);
    const long long first = (long long)blockIdx.x * MG_SCALE_ROWS;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = MG_THREADS / 32;
    const int walker = threadIdx.x < MG_SCALE_ROWS && first + threadIdx.x < rows;
    double v = 0.0;
    int wrong = 0;
    if (walker) {
        const long long t = first + threadIdx.x;
        const int y = 1 + (int)(t % (g.ny - 2)), z = 1 + (int)(t / (g.ny - 2));
        v = plane[(long long)g.ny * z + y];
    }
    for (int x0 = 1; x0 < g.nx - 1; x0 += MG_SCALE_ROWS) {
        const int x = x0 + lane;
        for (int k = warp; k < MG_SCALE_ROWS; k += warps) {
            const long long t = first + k;
            if (t >= rows || x > g.nx - 2 || x == 1) continue;
            const int y = 1 + (int)(t % (g.ny - 2)), z = 1 + (int)(t / (g.ny - 2));
            const long long w = x + g.sy * y + g.sz * z;
            ratio[k][lane] = coefficient(fc, w - 1, 1) / coefficient(fc, w, 0);
        }
        __syncthreads();
        if (walker)
            for (int c = 0; c < MG_SCALE_ROWS && x0 + c < g.nx - 1; ++c) {
                if (x0 + c > 1) v *= ratio[threadIdx.x][c];
                if (!(v > 0.0) || !isfinite(v) || v > 1e30 || v < 1e-30) wrong = 1;
                scale[threadIdx.x][c] = (float)v;
            }
        __syncthreads();
        for (int k = warp; k < MG_SCALE_ROWS; k += warps) {
            const long long t = first + k;
            if (t >= rows || x > g.nx - 2) continue;
            const int y = 1 + (int)(t % (g.ny - 2)), z = 1 + (int)(t / (g.ny - 2));
            dscale[x + g.sy * y + g.sz * z] = scale[k][lane];
        }
        /* the next chunk writes ratio (read only by the walkers, who are past the barrier above)
           and then scale after its first barrier, when every thread has stored this chunk */
    }
    if (wrong) atomicOr(bad, 1);
}

/* The symmetric coupling between w and w + offset (offset 0: a fixed face point, none), as
   the host's fine_coupling (mg_hierarchy.c). */
__device__ __forceinline__ double fine_coupling(const fine_coefficients &fc, const float *dscale,
                                                long long w, long long offset, int plus) {
    if (!offset) return 0.0;
    const double a = coefficient(fc, w, plus) * dscale[w];
    const double b = coefficient(fc, w + offset, plus - 1) * dscale[w + offset];
    return sqrt(a * b);
}

/* The host's fine_up: the unknown one step up from v along an axis of n points (its offset, 0 at
   a fixed face; across the seam to point 1 along a periodic axis) and its coordinate. */
__device__ __forceinline__ long long fine_up(int v, int n, long long stride, int periodic,
                                             int *up) {
    if (v + 1 <= n - 2) return *up = v + 1, stride;
    *up = 1;
    return periodic ? -(long long)(n - 3) * stride : 0;
}

/* The host's add_link: inside one aggregate twice off the diagonal, else the coupling up. */
__device__ __forceinline__ void add_link(double e, int A, int A_up, double *diag,
                                         double *coupling) {
    if (A_up == A)
        *diag -= 2 * e;
    else
        *coupling += e;
}

__global__ void k_build_first(grid_dims g, fine_coefficients fc, const float *dscale, level_view c,
                              int *bad) {
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < c.count;
         t += (long long)gridDim.x * blockDim.x) {
        int X, Y, Z;
        const long long q = level_index(c, t, &X, &Y, &Z);
        double diag = 0, cx = 0, cy = 0, cz = 0;
        for (int k = 0; k < 8; ++k) {
            const int x = 2 * X - 1 + (k & 1), y = 2 * Y - 1 + ((k >> 1) & 1),
                      z = 2 * Z - 1 + (k >> 2);
            if (x > g.nx - 2 || y > g.ny - 2 || z > g.nz - 2) continue;
            const long long w = x + g.sy * y + g.sz * z;
            diag += dscale[w];
            int xu, yu, zu;
            const long long ox = fine_up(x, g.nx, 1, g.periodic & DG_PERIODIC_X, &xu);
            const long long oy = fine_up(y, g.ny, g.sy, g.periodic & DG_PERIODIC_Y, &yu);
            const long long oz = fine_up(z, g.nz, g.sz, g.periodic & DG_PERIODIC_Z, &zu);
            add_link(fine_coupling(fc, dscale, w, ox, 1), X, (xu + 1) / 2, &diag, &cx);
            add_link(fine_coupling(fc, dscale, w, oy, 3), Y, (yu + 1) / 2, &diag, &cy);
            add_link(fine_coupling(fc, dscale, w, oz, 5), Z, (zu + 1) / 2, &diag, &cz);
        }
        c.diag[q] = (float)diag;
        c.cx[q] = X < c.mx || (c.wrap & DG_PERIODIC_X) ? (float)cx : 0.0f;
        c.cy[q] = Y < c.my || (c.wrap & DG_PERIODIC_Y) ? (float)cy : 0.0f;
        c.cz[q] = Z < c.mz || (c.wrap & DG_PERIODIC_Z) ? (float)cz : 0.0f;
        if (!(c.diag[q] > 0.0f)) atomicOr(bad, 2);
    }
}

__global__ void k_build_next(level_view f, level_view c, int *bad) {
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < c.count;
         t += (long long)gridDim.x * blockDim.x) {
        int X, Y, Z;
        const long long Q = level_index(c, t, &X, &Y, &Z);
        double diag = 0, cx = 0, cy = 0, cz = 0;
        for (int k = 0; k < 8; ++k) {
            const int x = 2 * X - 1 + (k & 1), y = 2 * Y - 1 + ((k >> 1) & 1),
                      z = 2 * Z - 1 + (k >> 2);
            if (x > f.mx || y > f.my || z > f.mz) continue;
            const long long q = x + f.sx * y + f.sy * z;
            diag += f.diag[q];
            const int xu = x < f.mx ? x + 1 : 1, yu = y < f.my ? y + 1 : 1,
                      zu = z < f.mz ? z + 1 : 1;
            add_link(f.cx[q], X, (xu + 1) / 2, &diag, &cx);
            add_link(f.cy[q], Y, (yu + 1) / 2, &diag, &cy);
            add_link(f.cz[q], Z, (zu + 1) / 2, &diag, &cz);
        }
        c.diag[Q] = (float)diag;
        c.cx[Q] = X < c.mx || (c.wrap & DG_PERIODIC_X) ? (float)cx : 0.0f;
        c.cy[Q] = Y < c.my || (c.wrap & DG_PERIODIC_Y) ? (float)cy : 0.0f;
        c.cz[Q] = Z < c.mz || (c.wrap & DG_PERIODIC_Z) ? (float)cz : 0.0f;
        if (!(c.diag[Q] > 0.0f)) atomicOr(bad, 2);
    }
}

/* A wrapping level's seam couplings (at its last unknown along each wrapping axis) copied to the
   ghost before its first unknown, where that unknown's stencil reads its coupling down (the
   host's wrap_couplings).  A thread per pair of the larger face; all three axes. */
__global__ void k_wrap_couplings(level_view l) {
    const long long faces[3] = {(long long)l.my * l.mz, (long long)l.mx * l.mz,
                                (long long)l.mx * l.my};
    for (int a = 0; a < 3; ++a) {
        if (!(l.wrap & (1 << a))) continue;
        for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < faces[a];
             t += (long long)gridDim.x * blockDim.x) {
            if (a == 0) {
                const long long row = l.sx * (1 + t % l.my) + l.sy * (1 + t / l.my);
                l.cx[row] = l.cx[row + l.mx];
            } else if (a == 1) {
                const long long col = (1 + t % l.mx) + l.sy * (1 + t / l.mx);
                l.cy[col] = l.cy[col + l.sx * l.my];
            } else {
                const long long col = (1 + t % l.mx) + l.sx * (1 + t / l.mx);
                l.cz[col] = l.cz[col + l.sy * l.mz];
            }
        }
    }
}

/* ---- The levels' classes (level_view.cls) --------------------------------------------------
   A point's key: its coupling c and diagonal as bits (c << 32 | diagonal) when every coupling to
   a neighbour inside the level is c (> 0), MG_NO_CLASS otherwise.  The distinct keys of a level
   go into a hash table of MG_CLASS_SLOTS slots (open addressing); the host numbers the filled
   slots (at most MG_IRREGULAR classes, in slot order) and each point takes its key's number, or
   MG_IRREGULAR (no key, or a key that found no slot or no number).  Which key lands in which slot
   may differ from run to run (the insertions race), but a point's class only decides which
   arrays its (same) coefficients are read from, so the results do not. */
#define MG_NO_CLASS    (~0ULL)
#define MG_CLASS_SLOTS 4096 /* the hash table of a level's classes while they are found */
#define MG_CLASS_PROBE 64   /* slots a key tries */

__device__ unsigned long long class_key(const level_view &l, long long q, int X, int Y, int Z) {
    const float v[6] = {l.cx[q - 1], l.cx[q], l.cy[q - l.sx], l.cy[q], l.cz[q - l.sy], l.cz[q]};
    /* whether each neighbour (x-, x+, y-, y+, z-, z+) is inside the level (across the seam of a
       wrapping axis: always) */
    const bool wx = l.wrap & DG_PERIODIC_X, wy = l.wrap & DG_PERIODIC_Y,
               wz = l.wrap & DG_PERIODIC_Z;
    const bool inside[6] = {X > 1 || wx,     X != l.mx || wx, Y > 1 || wy,
                            Y != l.my || wy, Z > 1 || wz,     Z != l.mz || wz};
    unsigned c = 0;
    bool have = false;
    for (int f = 0; f < 6; ++f) {
        if (!inside[f]) continue;
        if (!have)
            c = __float_as_uint(v[f]), have = true;
        else if (__float_as_uint(v[f]) != c)
            return MG_NO_CLASS;
    }
    if (!have || !(__uint_as_float(c) > 0.0f)) return MG_NO_CLASS;
    return (unsigned long long)c << 32 | __float_as_uint(l.diag[q]);
}

__device__ __forceinline__ unsigned class_hash(unsigned long long key) {
    const unsigned long long m = (key ^ (key >> 31)) * 0x9E3779B97F4A7C15ULL;
    return (unsigned)(m >> 40) & (MG_CLASS_SLOTS - 1);
}

/* The slot holding key, or -1 (a read first: most points find their key already there, so the
   few classes' slots see reads, not a queue of atomic operations). */
__device__ int class_slot(unsigned long long *slots, unsigned long long key, bool insert) {
    unsigned h = class_hash(key);
    for (int probe = 0; probe < MG_CLASS_PROBE; ++probe, h = (h + 1) & (MG_CLASS_SLOTS - 1)) {
        unsigned long long seen = ((volatile unsigned long long *)slots)[h];
        if (seen == MG_NO_CLASS && insert) seen = atomicCAS(&slots[h], MG_NO_CLASS, key);
        if (seen == key || (seen == MG_NO_CLASS && insert)) return (int)h;
        if (seen == MG_NO_CLASS) return -1;
    }
    return -1;
}

__global__ void k_class_insert(level_view l, unsigned long long *slots) {
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < l.count;
         t += (long long)gridDim.x * blockDim.x) {
        int X, Y, Z;
        const long long q = level_index(l, t, &X, &Y, &Z);
        const unsigned long long key = class_key(l, q, X, Y, Z);
        if (key != MG_NO_CLASS) class_slot(slots, key, true);
    }
}

__global__ void k_class_assign(level_view l, unsigned long long *slots, const unsigned char *number,
                               unsigned char *cls) {
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < l.count;
         t += (long long)gridDim.x * blockDim.x) {
        int X, Y, Z;
        const long long q = level_index(l, t, &X, &Y, &Z);
        const unsigned long long key = class_key(l, q, X, Y, Z);
        const int h = key != MG_NO_CLASS ? class_slot(slots, key, false) : -1;
        cls[level_at(l, q)] = h >= 0 ? number[h] : (unsigned char)MG_IRREGULAR;
    }
}

/* Per classified level: the class bytes (padded), the classes, the hash slots, the numbers. */
struct class_layout {
    size_t cls, classes, slots, number, total;
};

class_layout class_sizes(const dg_mg_level &hl) {
    auto up = [](size_t b) { return (b + 255) & ~(size_t)255; };
    class_layout c;
    c.cls = up(hl.padded);
    c.classes = up(MG_IRREGULAR * sizeof(float2));
    c.slots = up(MG_CLASS_SLOTS * sizeof(unsigned long long));
    c.number = up(MG_CLASS_SLOTS);
    c.total = c.cls + c.classes + c.slots + c.number;
    return c;
}

long class_min = MG_CLASS_MIN; /* dg_cuda_mg_class_min (mg.h) */

bool classified(const dg_mg_level &hl) {
    return (long long)hl.mx * hl.my * hl.mz >= class_min;
}

} // namespace

extern "C" void dg_cuda_mg_class_min(long unknowns) {
    class_min = unknowns < 0 ? MG_CLASS_MIN : unknowns;
}

size_t dg_cuda_mg_class_bytes(const mg_device *d) {
    size_t bytes = 0;
    for (int l = 0; l < d->h->level_count; ++l)
        if (classified(d->h->levels[l])) bytes += class_sizes(d->h->levels[l]).total;
    return bytes;
}

namespace {

/* The classes' device arrays of classified level l, carved from d->class_store in level order. */
struct class_arrays {
    unsigned char *cls, *number;
    float2 *classes;
    unsigned long long *slots;
};

class_arrays class_arrays_of(const mg_device *d, int l) {
    char *at = static_cast<char *>(d->class_store);
    for (int k = 0; k < l; ++k)
        at += class_sizes(d->h->levels[k]).total;
    const class_layout c = class_sizes(d->h->levels[l]);
    class_arrays a;
    a.cls = reinterpret_cast<unsigned char *>(at);
    a.classes = reinterpret_cast<float2 *>(at + c.cls);
    a.slots = reinterpret_cast<unsigned long long *>(at + c.cls + c.classes);
    a.number = reinterpret_cast<unsigned char *>(at + c.cls + c.classes + c.slots);
    return a;
}

/* The classified levels (the first ones: their counts only fall). */
int classified_levels(const mg_device *d) {
    int count = 0;
    while (count < d->level_count && classified(d->h->levels[count]))
        ++count;
    return count;
}

/* First phase, queued after the levels' build kernels: every classified level's keys into its
   hash table.  It runs while the host waits for phi's check and sends phi up. */
cudaError_t classify_insert(mg_device *d) {
    cudaError_t code = cudaSuccess;
    for (int l = 0; l < classified_levels(d) && code == cudaSuccess; ++l) {
        const class_arrays a = class_arrays_of(d, l);
        code =
            cudaMemsetAsync(a.slots, 0xff, MG_CLASS_SLOTS * sizeof(unsigned long long), d->stream);
        if (code == cudaSuccess)
            code = cudaMemsetAsync(a.cls, MG_IRREGULAR, d->h->levels[l].padded, d->stream);
        if (code != cudaSuccess) break;
        k_class_insert<<<dg_cuda_mg_blocks(d->levels[l].count), MG_THREADS, 0, d->stream>>>(
            d->levels[l], a.slots);
        code = cudaGetLastError();
    }
    return code;
}

/* Second phase, after the build's kernels have ended: the tables back (one copy per level), the
   filled slots numbered on the host, the numbers up, each point's class (queued; the cycles
   follow on the same stream), and the levels' views pointed at them. */
int classify_finish(mg_device *d, dg_error *err) {
    const int count = classified_levels(d);
    if (!count) return DG_OK;
    const size_t slots_bytes = MG_CLASS_SLOTS * sizeof(unsigned long long);
    unsigned long long *host_slots = (unsigned long long *)malloc((size_t)count * slots_bytes);
    unsigned char *host_number = (unsigned char *)malloc(MG_CLASS_SLOTS);
    float2 *host_classes = (float2 *)malloc(MG_IRREGULAR * sizeof(float2));
    cudaError_t code = cudaSuccess;
    if (!host_slots || !host_number || !host_classes) {
        free(host_slots), free(host_number), free(host_classes);
        return dg_error_set(err, DG_ERR_OUT_OF_MEMORY, "out of host memory (multigrid classes)");
    }
    for (int l = 0; l < count && code == cudaSuccess; ++l)
        code = cudaMemcpyAsync(host_slots + (size_t)l * MG_CLASS_SLOTS, class_arrays_of(d, l).slots,
                               slots_bytes, cudaMemcpyDeviceToHost, d->stream);
    if (code == cudaSuccess) code = cudaStreamSynchronize(d->stream);
    for (int l = 0; l < count && code == cudaSuccess; ++l) {
        const class_arrays a = class_arrays_of(d, l);
        const unsigned long long *ls = host_slots + (size_t)l * MG_CLASS_SLOTS;
        int classes = 0;
        for (int h = 0; h < MG_CLASS_SLOTS; ++h) {
            host_number[h] = MG_IRREGULAR;
            if (ls[h] == MG_NO_CLASS || classes == MG_IRREGULAR) continue;
            const unsigned c = (unsigned)(ls[h] >> 32), diag = (unsigned)ls[h];
            float cf, df;
            memcpy(&cf, &c, sizeof cf), memcpy(&df, &diag, sizeof df);
            host_classes[classes] = make_float2(cf, df);
            host_number[h] = (unsigned char)classes++;
        }
        /* from pageable memory: each returns once its source is staged, so the host arrays
           serve the next level */
        code = cudaMemcpyAsync(a.number, host_number, MG_CLASS_SLOTS, cudaMemcpyHostToDevice,
                               d->stream);
        if (code == cudaSuccess && classes > 0)
            code = cudaMemcpyAsync(a.classes, host_classes, (size_t)classes * sizeof(float2),
                                   cudaMemcpyHostToDevice, d->stream);
        if (code == cudaSuccess) {
            /* the keys from the coefficient arrays (the view has no classes yet) */
            k_class_assign<<<dg_cuda_mg_blocks(d->levels[l].count), MG_THREADS, 0, d->stream>>>(
                d->levels[l], a.slots, a.number, a.cls);
            code = cudaGetLastError();
        }
        if (code == cudaSuccess) d->levels[l].cls = a.cls, d->levels[l].classes = a.classes;
    }
    free(host_slots), free(host_number), free(host_classes);
    if (code != cudaSuccess) {
        for (int l = 0; l < count; ++l)
            d->levels[l].cls = NULL, d->levels[l].classes = NULL;
        return dg_cuda_fail(err, code, "multigrid classes");
    }
    return DG_OK;
}

} // namespace

int dg_cuda_mg_blocks(long long count) {
    long long b = (count + MG_THREADS - 1) / MG_THREADS;
    return (int)(b < 1 ? 1 : (b > 65535 * 16 ? 65535 * 16 : b));
}

int dg_cuda_mg_upload(void **dst, const void *src, size_t bytes, const char *what, dg_error *err) {
    DG_CUDA_TRY(cudaMalloc(dst, bytes ? bytes : 1), what);
    if (bytes) DG_CUDA_TRY(cudaMemcpy(*dst, src, bytes, cudaMemcpyHostToDevice), what);
    return DG_OK;
}

/* D, the salt map and the coarse operators on the device (slot map and the per-plane D
   values are temporary). */
int dg_cuda_mg_build(mg_device *d, dg_error *err) {
    const dg_prepared *p = d->h->prep;
    const size_t n = p->point_count;
    unsigned char *flag[2] = {NULL, NULL};
    int *slot = NULL, *bad = NULL;
    double *plane = NULL;
    int st = DG_OK, bad_host = 0;
    cudaError_t code = cudaSuccess;
    fine_coefficients fc;
    const char *what = "cudaMalloc (multigrid set-up)";
    if ((code = cudaMalloc((void **)&slot, n * sizeof(int))) != cudaSuccess ||
        (code = cudaMalloc((void **)&bad, sizeof(int))) != cudaSuccess ||
        (code = cudaMalloc((void **)&plane, sizeof(double) * p->ny * p->nz)) != cudaSuccess)
        goto done;
    what = "multigrid set-up";
    if ((code = cudaMemset(slot, 0xff, n * sizeof(int))) != cudaSuccess ||
        (code = cudaMemset(bad, 0, sizeof(int))) != cudaSuccess)
        goto done;
    if (p->has_salt)
        for (int c = 0; c < 2; ++c)
            if ((st = dg_cuda_mg_upload((void **)&flag[c], p->flag[c], p->half_count[c],
                                        "multigrid flags", err)))
                goto done;
    if (!p->has_salt && (code = cudaMemset(d->salt, 0, n)) != cudaSuccess) goto done;
    /* the memsets and uploads so far ran on the legacy stream; the kernels below do not wait */
    if ((code = cudaDeviceSynchronize()) != cudaSuccess) goto done;
    if (p->has_salt) {
        k_salt_map<<<dg_cuda_mg_blocks((long long)n), MG_THREADS, 0, d->stream>>>(
            (long long)n, d->g.h0, flag[0], flag[1], d->salt);
        if ((code = cudaGetLastError()) != cudaSuccess) goto done;
    }
    for (int c = 0; c < 2; ++c)
        if (d->boundary_count[c]) {
            k_slot<<<dg_cuda_mg_blocks(d->boundary_count[c]), MG_THREADS, 0, d->stream>>>(
                d->boundary_count[c], d->boundary_index[c], c, slot);
            if ((code = cudaGetLastError()) != cudaSuccess) goto done;
        }
    fc.f0 = p->factor[0], fc.f1 = p->factor[1], fc.h0 = d->g.h0, fc.salt = d->salt;
    fc.slot = slot;
    fc.weight0 = d->boundary_weight[0], fc.weight1 = d->boundary_weight[1];
    k_scale_line<<<1, MG_THREADS, 0, d->stream>>>(d->g, fc, plane);
    if ((code = cudaGetLastError()) != cudaSuccess) goto done;
    k_scale_planes<<<p->nz - 2, MG_THREADS, 0, d->stream>>>(d->g, fc, plane);
    if ((code = cudaGetLastError()) != cudaSuccess) goto done;
    k_scale_rows<<<(int)(((long long)(p->ny - 2) * (p->nz - 2) + MG_SCALE_ROWS - 1) /
                         MG_SCALE_ROWS),
                   MG_THREADS, 0, d->stream>>>(d->g, fc, plane, d->dscale, bad);
    if ((code = cudaGetLastError()) != cudaSuccess) goto done;
    for (int l = 0; l < d->level_count; ++l) {
        if (l == 0)
            k_build_first<<<dg_cuda_mg_blocks(d->levels[0].count), MG_THREADS, 0, d->stream>>>(
                d->g, fc, d->dscale, d->levels[0], bad);
        else
            k_build_next<<<dg_cuda_mg_blocks(d->levels[l].count), MG_THREADS, 0, d->stream>>>(
                d->levels[l - 1], d->levels[l], bad);
        if ((code = cudaGetLastError()) != cudaSuccess) goto done;
        if (d->levels[l].wrap) {
            k_wrap_couplings<<<dg_cuda_mg_blocks(wrap_span(d->levels[l])), MG_THREADS, 0,
                               d->stream>>>(d->levels[l]);
            if ((code = cudaGetLastError()) != cudaSuccess) goto done;
        }
    }
    if (d->class_store && (code = classify_insert(d)) != cudaSuccess) goto done;
    {
        /* phi's check (the caller's, possibly on a thread of its own) ran beside the set-up so
           far; phi's transfer overlaps the build kernels queued above */
        const double waited = dg_wall_seconds();
        const int verdict = dg_cuda_mg_check_verdict(d);
        d->check_wait_seconds = dg_wall_seconds() - waited;
        if (verdict < 0) {
            st = dg_error_set(err, DG_ERR_NONFINITE_INPUT, "phi holds a non-finite value");
            goto done;
        }
        d->interior_zero = verdict == 1;
        const double t0 = dg_wall_seconds();
        st = d->phi ? dg_cuda_mg_upload_phi(d, err) : DG_OK; /* none for a Newton step */
        d->phi_in_seconds = dg_wall_seconds() - t0;
        if (st != DG_OK) goto done;
    }
    if ((code = cudaMemcpyAsync(&bad_host, bad, sizeof(int), cudaMemcpyDeviceToHost, d->stream)) !=
            cudaSuccess ||
        (code = cudaStreamSynchronize(d->stream)) != cudaSuccess)
        goto done;
    if (bad_host & 1)
        st = dg_error_set(err, DG_ERR_UNSUPPORTED,
                          "multigrid: the medium has a non-positive coupling (a face permittivity "
                          "<= 0), so the operator is not symmetrisable; use the SOR solver");
    else if (bad_host & 2)
        st = dg_error_set(err, DG_ERR_INTERNAL,
                          "multigrid: a coarse operator lost its positive diagonal");
    else if (d->class_store)
        st = classify_finish(d, err);
done:
    if (st == DG_OK && code != cudaSuccess) st = dg_cuda_fail(err, code, what);
    cudaFree(flag[0]), cudaFree(flag[1]), cudaFree(slot), cudaFree(bad), cudaFree(plane);
    return st;
}
