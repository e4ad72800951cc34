/* Stage operations on the GPU (see stages.h).
 * Pair sums (potentials and fields): one thread per target; the sources stream through shared
 * memory in index order and each thread sums its terms in double in that order, with the host's
 * expression term for term (IEEE sqrt and division, no FMA contraction): out equals the CPU
 * backend's.
 * Medium maps: one block per atom marks its spheres (atomicOr on the bytes' words), then one
 * thread per point resolves it, the shell points with the host's SES test (surface_points.h). */
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.cuh"
#include "stages/surface_points.h"
#include "transfer_host.h"

namespace {

struct charge_point { /* a source: position and charge */
    double x, y, z, q;
};

constexpr int kPairThreads = 256;

/* Field = false: out[k] = sum_i q_i / r.  Field = true: out[3k + a] = sum_i q_i (t - s_i)_a / r^3,
   each term w = q / (r r r) times the component, as dg_pair_fields_host computes it. */
template <bool Field>
__global__ void __launch_bounds__(kPairThreads)
    dg_pair_sum_kernel(const double *targets, long target_count, const charge_point *sources,
                       long source_count, int upper_triangle, double min_distance, double *out,
                       unsigned long long *skipped) {
    __shared__ charge_point tile[kPairThreads];
    const long first = blockIdx.x * (long)kPairThreads;
    const long k = first + threadIdx.x;
    double tx = 0.0, ty = 0.0, tz = 0.0;
    if (k < target_count) tx = targets[3 * k], ty = targets[3 * k + 1], tz = targets[3 * k + 2];
    double sum = 0.0, fx = 0.0, fy = 0.0, fz = 0.0;
    unsigned long long left_out = 0;
    /* In the upper triangle no thread of this block needs sources before first + 1. */
    const long start = upper_triangle ? ((first + 1) / kPairThreads) * kPairThreads : 0;
    for (long base = start; base < source_count; base += kPairThreads) {
        if (base + threadIdx.x < source_count) tile[threadIdx.x] = sources[base + threadIdx.x];
        __syncthreads();
        const int n = (int)min((long)kPairThreads, source_count - base);
        if (k < target_count)
            for (int j = 0; j < n; ++j) {
                if (upper_triangle && base + j <= k) continue;
                const double dx = tx - tile[j].x, dy = ty - tile[j].y, dz = tz - tile[j].z;
                const double d = sqrt(dx * dx + dy * dy + dz * dz);
                if (Field) { /* a left-out pair adds +0.0, as the host's vector lanes add it */
                    const double w = tile[j].q / (d * d * d);
                    const bool near = d < min_distance;
                    fx += near ? 0.0 : w * dx, fy += near ? 0.0 : w * dy;
                    fz += near ? 0.0 : w * dz;
                    left_out += near;
                    continue;
                }
                if (d < min_distance) {
                    ++left_out;
                    continue;
                }
                sum += tile[j].q / d;
            }
        __syncthreads();
    }
    if (k < target_count) {
        if (Field)
            out[3 * k] = fx, out[3 * k + 1] = fy, out[3 * k + 2] = fz;
        else
            out[k] = sum;
        if (left_out) atomicAdd(skipped, left_out);
    }
}

} // namespace

/* The sums of either kind: values per target 1 (potentials) or 3 (fields). */
static int pair_sums(const dg_pair_request *r, bool field, double *out, long *skipped,
                     dg_error *err) {
    if (skipped) *skipped = 0;
    if (r->target_count == 0) return DG_OK;
    /* One device block: sources (packed with their charges), targets, sums, the count; the
       sources and targets go up from one host staging copy in one transfer. */
    const size_t source_bytes =
        (size_t)(r->source_count > 0 ? r->source_count : 1) * sizeof(charge_point);
    const size_t target_bytes = (size_t)r->target_count * 3 * sizeof(double);
    const size_t out_bytes = (size_t)r->target_count * (field ? 3 : 1) * sizeof(double);
    const size_t align = 256;
    const size_t target_at = (source_bytes + align - 1) / align * align;
    const size_t out_at = target_at + (target_bytes + align - 1) / align * align;
    const size_t count_at = out_at + (out_bytes + align - 1) / align * align;
    const size_t total = count_at + sizeof(unsigned long long);
    unsigned char *host = static_cast<unsigned char *>(malloc(target_at + target_bytes));
    if (!host)
        return dg_error_set(err, DG_ERR_OUT_OF_MEMORY, "out of host memory for %ld charges",
                            r->source_count);
    charge_point *host_sources = reinterpret_cast<charge_point *>(host);
    for (long i = 0; i < r->source_count; ++i)
        host_sources[i] = {r->sources[3 * i], r->sources[3 * i + 1], r->sources[3 * i + 2],
                           r->charges[i]};
    memcpy(host + target_at, r->targets, target_bytes);
    unsigned char *block = nullptr;
    unsigned long long host_count = 0;
    cudaError_t code = cudaMalloc(&block, total);
    const char *what = "cudaMalloc (pair sums)";
    if (code != cudaSuccess) block = nullptr;
    const charge_point *sources = reinterpret_cast<const charge_point *>(block);
    const double *targets = reinterpret_cast<const double *>(block + target_at);
    double *values = reinterpret_cast<double *>(block + out_at);
    unsigned long long *count = reinterpret_cast<unsigned long long *>(block + count_at);
    if (code == cudaSuccess)
        code = cudaMemcpy(block, host, target_at + target_bytes, cudaMemcpyHostToDevice),
        what = "cudaMemcpy (pair sources and targets)";
    if (code == cudaSuccess)
        code = cudaMemset(count, 0, sizeof *count), what = "cudaMemset (pair count)";
    if (code == cudaSuccess) {
        const long blocks = (r->target_count + kPairThreads - 1) / kPairThreads;
        if (field)
            dg_pair_sum_kernel<true><<<(unsigned)blocks, kPairThreads>>>(
                targets, r->target_count, sources, r->source_count, r->upper_triangle,
                r->min_distance, values, count);
        else
            dg_pair_sum_kernel<false><<<(unsigned)blocks, kPairThreads>>>(
                targets, r->target_count, sources, r->source_count, r->upper_triangle,
                r->min_distance, values, count);
        code = cudaGetLastError(), what = "launch of dg_pair_sum_kernel";
    }
    if (code == cudaSuccess)
        code = cudaMemcpy(out, values, out_bytes, cudaMemcpyDeviceToHost),
        what = "cudaMemcpy (pair sums back)";
    if (code == cudaSuccess)
        code = cudaMemcpy(&host_count, count, sizeof host_count, cudaMemcpyDeviceToHost),
        what = "cudaMemcpy (pair count back)";
    free(host);
    const cudaError_t freed = block ? cudaFree(block) : cudaSuccess;
    if (code == cudaSuccess && freed != cudaSuccess) code = freed, what = "cudaFree (pair sums)";
    if (code != cudaSuccess) return dg_cuda_fail(err, code, what);
    if (skipped) *skipped = (long)host_count;
    return DG_OK;
}

int dg_cuda_pair_potentials(dg_cuda_state *st, const dg_pair_request *r, double *out, long *skipped,
                            dg_error *err) {
    (void)st;
    return pair_sums(r, false, out, skipped, err);
}

int dg_cuda_pair_fields(dg_cuda_state *st, const dg_pair_request *r, double *out, long *skipped,
                        dg_error *err) {
    (void)st;
    return pair_sums(r, true, out, skipped, err);
}

namespace {

constexpr int kMarkThreads = 128;
constexpr int kResolveThreads = 256;

__global__ void __launch_bounds__(kMarkThreads)
    dg_mark_atoms_kernel(dg_surface_request r, double off_x, double off_y, double off_z,
                         double inner, double outer, double plane_extra, unsigned int *marks) {
    const int i = blockIdx.x;
    if (i >= r.count) return;
    const double off[3] = {off_x, off_y, off_z};
    int lo, hi, box[4];
    dg_sp_plane_range(&r, i, plane_extra, &lo, &hi);
    const double r_in = r.radius[i] + inner, r_out = r.radius[i] + outer;
    const double r_max = fmax(r_in, r_out);
    for (int z = lo; z <= hi; ++z) {
        double dz;
        if (!dg_sp_disk(&r, i, z, off, r_max, &dz, box)) continue;
        const int width = box[3] - box[2] + 1, rows = box[1] - box[0] + 1;
        for (int t = threadIdx.x; t < width * rows; t += kMarkThreads) {
            const int x = box[2] + t % width, y = box[0] + t / width;
            const int m = dg_sp_mark(&r, i, x, y, off, dz, r_in, r_out);
            if (!m) continue;
            const size_t w = (size_t)x + (size_t)r.n * ((size_t)y + (size_t)r.n * (size_t)z);
            atomicOr(marks + w / 4, (unsigned int)m << (8 * (w % 4)));
        }
    }
}

/* counts[0..2]: solute, shell, reentrant (faces) or [0]: ion-accessible (ions). */
__global__ void __launch_bounds__(kResolveThreads)
    dg_resolve_faces_kernel(dg_surface_request r, double off_x, double off_y, double off_z,
                            const unsigned char *marks, unsigned char *out,
                            unsigned long long *counts) {
    __shared__ unsigned long long block[3];
    if (threadIdx.x < 3) block[threadIdx.x] = 0;
    __syncthreads();
    const long long n = r.n;
    const long long w = blockIdx.x * (long long)kResolveThreads + threadIdx.x;
    unsigned long long solute = 0, shell = 0;
    if (w < n * n * n) {
        int v = marks[w];
        if (v & DG_SP_INNER) {
            v = 1;
        } else if (v & DG_SP_SHELL) {
            const double p[3] = {dg_sp_position(&r, 0, (double)(w % n) + off_x),
                                 dg_sp_position(&r, 1, (double)((w / n) % n) + off_y),
                                 dg_sp_position(&r, 2, (double)(w / (n * n)) + off_z)};
            v = !dg_sp_shell_outside(&r, p);
            shell = 1;
        }
        out[w] = (unsigned char)v;
        solute = (unsigned long long)v;
    }
    if (solute) atomicAdd(&block[0], solute);
    if (shell) atomicAdd(&block[1], shell);
    if (shell && solute) atomicAdd(&block[2], 1ULL);
    __syncthreads();
    if (threadIdx.x < 3 && block[threadIdx.x]) atomicAdd(counts + threadIdx.x, block[threadIdx.x]);
}

__global__ void __launch_bounds__(kResolveThreads)
    dg_resolve_ions_kernel(long long points, const unsigned char *marks, unsigned char *out,
                           unsigned long long *counts) {
    __shared__ unsigned long long block;
    if (threadIdx.x == 0) block = 0;
    __syncthreads();
    const long long w = blockIdx.x * (long long)kResolveThreads + threadIdx.x;
    if (w < points) {
        out[w] = !marks[w];
        if (out[w]) atomicAdd(&block, 1ULL);
    }
    __syncthreads();
    if (threadIdx.x == 0 && block) atomicAdd(counts, block);
}

/* Device copies of the request's arrays in one allocation; the request itself then points at
 * them.  The arrays are laid out twice by the same calls: first to size the block (copy == 0),
 * then to copy each array from the caller's memory into its place (one cudaMalloc and one
 * cudaFree per call; no host staging copy, which at 250 000 atoms meant packing some 700 MB on
 * one host thread before the transfer). */
struct device_surface {
    dg_surface_request r;
    unsigned char *device; /* the block */
    int copy;              /* 1: the second pass, which copies */
    cudaError_t code;      /* the first failed copy's error */
    size_t size;
};

constexpr size_t kSegmentAlign = 256;

template <typename T> void place(device_surface *d, const T *source, size_t count, const T **dst) {
    *dst = nullptr;
    if (!source || count == 0) return;
    const size_t offset = d->size;
    d->size += (count * sizeof(T) + kSegmentAlign - 1) / kSegmentAlign * kSegmentAlign;
    if (!d->copy) return;
    if (d->code == cudaSuccess)
        d->code = cudaMemcpy(d->device + offset, source, count * sizeof(T), cudaMemcpyHostToDevice);
    *dst = reinterpret_cast<const T *>(d->device + offset);
}

size_t cells_of(const dg_cell_grid *g) {
    return (size_t)g->dim[0] * g->dim[1] * g->dim[2];
}

/* with_cells: also the cell list of all atoms (surface sites). */
void layout_surface(device_surface *d, const dg_surface_request *r, int with_cells) {
    d->size = 0;
    const size_t atoms = (size_t)r->count;
    place(d, r->xyz, 3 * atoms, &d->r.xyz);
    place(d, r->radius, atoms, &d->r.radius);
    place(d, r->sas_radius, atoms, &d->r.sas_radius);
    if (with_cells && atoms > 0) {
        const size_t cells = cells_of(&r->atoms);
        place(d, r->atoms.start, cells + 1, &d->r.atoms.start);
        place(d, r->atoms.items, (size_t)r->atoms.start[cells], &d->r.atoms.items);
    }
    if (!r->molecular || !(r->probe > 0.0)) return;
    place(d, r->neighbor_start, atoms + 1, &d->r.neighbor_start);
    place(d, r->neighbors, (size_t)r->neighbor_start[atoms], &d->r.neighbors);
    const size_t exposed_cells = cells_of(&r->exposed_atoms);
    place(d, r->exposed_atoms.start, exposed_cells + 1, &d->r.exposed_atoms.start);
    place(d, r->exposed_atoms.items, (size_t)r->exposed_atoms.start[exposed_cells],
          &d->r.exposed_atoms.items);
    if (r->dot_count <= 0) return;
    const size_t dot_cells = cells_of(&r->dot_cells);
    place(d, r->dots, 3 * (size_t)r->dot_count, &d->r.dots);
    place(d, r->dot_cells.start, dot_cells + 1, &d->r.dot_cells.start);
    place(d, r->dot_cells.items, (size_t)r->dot_cells.start[dot_cells], &d->r.dot_cells.items);
}

cudaError_t upload_surface(device_surface *d, const dg_surface_request *r, int with_cells,
                           const char **what) {
    memset(d, 0, sizeof *d);
    d->r = *r;
    /* Sizes only; the placed arrays' pointers are nullptr until the packing pass (as before,
       an empty array stays nullptr and an array left out keeps the request's pointer). */
    layout_surface(d, r, with_cells);
    if (d->size == 0) return cudaSuccess;
    *what = "cudaMalloc (surface model)";
    cudaError_t code = cudaMalloc(&d->device, d->size);
    if (code != cudaSuccess) {
        d->device = nullptr;
        return code;
    }
    d->copy = 1;
    layout_surface(d, r, with_cells);
    *what = "upload of the surface model";
    return d->code;
}

cudaError_t free_surface(device_surface *d) {
    const cudaError_t code = d->device ? cudaFree(d->device) : cudaSuccess;
    d->device = nullptr;
    return code;
}

constexpr int kSiteThreads = 128;

__global__ void __launch_bounds__(kSiteThreads)
    dg_surface_sites_kernel(dg_surface_request r, const double *points, long count, double reach,
                            double *sites, int *owners, unsigned long long *missed) {
    const long k = blockIdx.x * (long)kSiteThreads + threadIdx.x;
    if (k >= count) return;
    const double x[3] = {points[3 * k], points[3 * k + 1], points[3 * k + 2]};
    double s[3];
    if (dg_sp_project(&r, x, reach, s, owners ? owners + k : nullptr) != 0) atomicAdd(missed, 1ULL);
    sites[3 * k] = s[0], sites[3 * k + 1] = s[1], sites[3 * k + 2] = s[2];
}

} // namespace

int dg_cuda_medium_maps(dg_cuda_state *st, const dg_surface_request *r, unsigned char *face[3],
                        unsigned char *ion, dg_medium_counts *counts, dg_error *err) {
    memset(counts, 0, sizeof *counts);
    const long long points = (long long)r->n * r->n * r->n;
    const double plane_extra = fmax(r->probe, r->ion_map ? r->ion_radius : 0.0);
    device_surface d;
    const char *what = "";
    unsigned int *marks = nullptr;
    unsigned char *out = nullptr;
    unsigned long long *count = nullptr, host_count[3] = {0, 0, 0};
    cudaError_t code = upload_surface(&d, r, 0, &what);
    if (code == cudaSuccess)
        code = cudaMalloc(&marks, ((size_t)points + 3) / 4 * 4), what = "cudaMalloc (marks)";
    if (code == cudaSuccess) code = cudaMalloc(&out, (size_t)points), what = "cudaMalloc (map)";
    if (code == cudaSuccess)
        code = cudaMalloc(&count, 3 * sizeof *count), what = "cudaMalloc (map counts)";
    const unsigned blocks = (unsigned)((points + kResolveThreads - 1) / kResolveThreads);
    for (int a = 0; a < 4 && code == cudaSuccess; ++a) {
        if (a == 3 && !r->ion_map) break;
        double off[3] = {0, 0, 0};
        if (a < 3) off[a] = 0.5;
        const double inner = a < 3 ? 0.0 : r->ion_radius, outer = a < 3 ? r->probe : r->ion_radius;
        code = cudaMemset(marks, 0, ((size_t)points + 3) / 4 * 4), what = "cudaMemset (marks)";
        if (code == cudaSuccess)
            code = cudaMemset(count, 0, 3 * sizeof *count), what = "cudaMemset (map counts)";
        if (code == cudaSuccess && r->count > 0) {
            dg_mark_atoms_kernel<<<(unsigned)r->count, kMarkThreads>>>(
                d.r, off[0], off[1], off[2], inner, outer, plane_extra, marks);
            code = cudaGetLastError(), what = "launch of dg_mark_atoms_kernel";
        }
        if (code == cudaSuccess) {
            const unsigned char *bytes = reinterpret_cast<const unsigned char *>(marks);
            if (a < 3)
                dg_resolve_faces_kernel<<<blocks, kResolveThreads>>>(d.r, off[0], off[1], off[2],
                                                                     bytes, out, count);
            else
                dg_resolve_ions_kernel<<<blocks, kResolveThreads>>>(points, bytes, out, count);
            code = cudaGetLastError(), what = "launch of the medium resolve kernel";
        }
        /* While the kernels run, the map's pages are first touched on all host threads: the
           driver's copy into pages it faults in one by one runs at about 1.2 GB/s. */
        if (code == cudaSuccess)
            dg_zero_threads(a < 3 ? face[a] : ion, (size_t)points, st->config.num_threads);
        if (code == cudaSuccess)
            code = cudaMemcpy(a < 3 ? face[a] : ion, out, (size_t)points, cudaMemcpyDeviceToHost),
            what = "cudaMemcpy (map back)";
        if (code == cudaSuccess)
            code = cudaMemcpy(host_count, count, sizeof host_count, cudaMemcpyDeviceToHost),
            what = "cudaMemcpy (map counts back)";
        if (code != cudaSuccess) break;
        if (a < 3) {
            counts->solute_faces[a] = (size_t)host_count[0];
            counts->shell_points += (size_t)host_count[1];
            counts->reentrant_points += (size_t)host_count[2];
        } else {
            counts->ion_accessible_points = (size_t)host_count[0];
        }
    }
    const cudaError_t freed[4] = {free_surface(&d), cudaFree(marks), cudaFree(out),
                                  cudaFree(count)};
    for (int i = 0; i < 4 && code == cudaSuccess; ++i)
        if (freed[i] != cudaSuccess) code = freed[i], what = "cudaFree (medium maps)";
    return code == cudaSuccess ? DG_OK : dg_cuda_fail(err, code, what);
}

int dg_cuda_surface_sites(dg_cuda_state *st, const dg_surface_request *r, const double *points,
                          long count, double reach, double *sites, int *owners, long *unprojected,
                          dg_error *err) {
    (void)st;
    *unprojected = 0;
    if (count == 0) return DG_OK;
    const size_t bytes = (size_t)count * 3 * sizeof(double);
    device_surface d;
    const char *what = "";
    double *device_points = nullptr, *device_sites = nullptr;
    int *device_owners = nullptr;
    unsigned long long *missed = nullptr, host_missed = 0;
    cudaError_t code = upload_surface(&d, r, 1, &what);
    if (code == cudaSuccess)
        code = cudaMalloc(&device_points, bytes), what = "cudaMalloc (site points)";
    if (code == cudaSuccess) code = cudaMalloc(&device_sites, bytes), what = "cudaMalloc (sites)";
    if (code == cudaSuccess && owners)
        code = cudaMalloc(&device_owners, (size_t)count * sizeof(int)),
        what = "cudaMalloc (site owners)";
    if (code == cudaSuccess)
        code = cudaMalloc(&missed, sizeof *missed), what = "cudaMalloc (site count)";
    if (code == cudaSuccess)
        code = cudaMemcpy(device_points, points, bytes, cudaMemcpyHostToDevice),
        what = "cudaMemcpy (site points)";
    if (code == cudaSuccess)
        code = cudaMemset(missed, 0, sizeof *missed), what = "cudaMemset (site count)";
    if (code == cudaSuccess) {
        const long blocks = (count + kSiteThreads - 1) / kSiteThreads;
        dg_surface_sites_kernel<<<(unsigned)blocks, kSiteThreads>>>(
            d.r, device_points, count, reach, device_sites, device_owners, missed);
        code = cudaGetLastError(), what = "launch of dg_surface_sites_kernel";
    }
    if (code == cudaSuccess)
        code = cudaMemcpy(sites, device_sites, bytes, cudaMemcpyDeviceToHost),
        what = "cudaMemcpy (sites back)";
    if (code == cudaSuccess && owners)
        code =
            cudaMemcpy(owners, device_owners, (size_t)count * sizeof(int), cudaMemcpyDeviceToHost),
        what = "cudaMemcpy (site owners back)";
    if (code == cudaSuccess)
        code = cudaMemcpy(&host_missed, missed, sizeof host_missed, cudaMemcpyDeviceToHost),
        what = "cudaMemcpy (site count back)";
    const cudaError_t freed[5] = {free_surface(&d), cudaFree(device_points), cudaFree(device_sites),
                                  cudaFree(device_owners), cudaFree(missed)};
    for (int i = 0; i < 5 && code == cudaSuccess; ++i)
        if (freed[i] != cudaSuccess) code = freed[i], what = "cudaFree (surface sites)";
    if (code != cudaSuccess) return dg_cuda_fail(err, code, what);
    *unprojected = (long)host_missed;
    return DG_OK;
}
