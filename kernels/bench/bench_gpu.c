/* dg_bench_gpu: speed of the CUDA backend's iterations against the device's copy bandwidth and
 * against the CPU backend on the same machine.  Not a test.
 *
 * Both backends run the same prepared problem through the backend seam (backend.h), so they do
 * exactly the same work: a dielectric sphere with charges (Poisson), plus solvent flags (linear
 * PB) and the lagged nonlinear source (nonlinear PB).  Times are wall-clock over whole blocks of
 * iterations with a convergence check every 10, as the solver runs them (for nonlinear PB each
 * block also recomputes the source).  Bytes per point and iteration counted: Poisson 12 (float)
 * / 24 (double): read and write the point, read it once as a neighbour; PB adds the 1-byte flag;
 * nonlinear PB adds the source read.  The roofline is the copy bandwidth (cudaMemcpy device to
 * device, bytes read + written) divided by those bytes.  CPU times are measured on the sizes up
 * to --cpu-max with all cores; larger sizes print n/a (nothing is extrapolated).
 *
 * Usage: dg_bench_gpu [--sizes 129,257,513,769] [--cpu-max 513] [--quick]
 *                     [--skip-shapes] [--skip-readers]
 *                     [--only-sweeps [--precision float|double] [--block BXxBY] [--checks]]
 * --only-sweeps runs just the bare sweeps (for the profiler), autotuned unless --block is given;
 * --checks lets the autotune run in blocks of 10 iterations with a check each, as the solver's.
 * Sweep variants are written dD pP wW: prefetch depth D, P planes per barrier, W pairs per thread
 * (cuda_sweep.cuh, cuda_sweep_pair.cuh, cuda_sweep_wide.cuh; "s": its segments layout).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "backend.h"
#include "bench_problems.h"
#include "cuda_backend.h"
#include "delphi_gpu/delphi_gpu_types.h"

enum { EQ_POISSON, EQ_PB, EQ_NONLINEAR, EQ_COUNT };
static const char *eq_name[EQ_COUNT] = {"Poisson", "PB", "NL-PB"};

typedef struct row {
    int n, precision, equation;
    double gpu_ms, cpu_ms; /* per iteration; < 0 = not measured */
    int bx, by, depth, planes;
} row;

static double now(void) {
    return omp_get_wtime();
}

static int fail(const char *what, const dg_error *err) {
    fprintf(stderr, "bench: %s: %s\n", what, err->message);
    return -1;
}

/* Per point and iteration. */
static double bytes_per_point(int precision, int equation) {
    const double s = precision == DG_PRECISION_FLOAT ? 4.0 : 8.0;
    return 3.0 * s + (equation >= EQ_PB ? 1.0 : 0.0) + (equation == EQ_NONLINEAR ? s : 0.0);
}

/* Blocks of 10 iterations with a check each (and the nonlinear source before each block), for
   at least min_seconds; returns ms per iteration. */
static double time_blocks(const dg_backend_ops *ops, void *state, int nonlinear, double min_seconds,
                          int max_blocks, dg_error *err) {
    dg_change change = {0};
    int blocks = 0;
    const double start = now();
    do {
        if (nonlinear && ops->update_nonlinear_source(state, 1.0, err) != DG_OK) return -1.0;
        if (ops->iterate(state, 10, 1, 1, &change, err) != DG_OK) return -1.0;
        ++blocks;
    } while ((now() - start < min_seconds && blocks < max_blocks) || blocks < 1);
    return (now() - start) * 1e3 / (10.0 * blocks);
}

/* Set up one backend on prep, warm it up (and let the autotune finish), time it.
   Returns ms per iteration, or -1 with a message. */
static double run_backend(const dg_backend_ops *ops, const dg_backend_config *config,
                          const dg_prepared *prep, const double *phi0, int equation,
                          double min_seconds, int max_blocks, row *shape, int reader) {
    dg_error err = {0};
    void *state = NULL;
    double ms = -1.0;
    if (ops->create(&state, config, &err) != DG_OK) return fail("create", &err), -1.0;
    if (ops->set_medium(state, prep, &err) != DG_OK) {
        printf("  (%s backend, %d^3: %s)\n", ops->name, prep->nx, err.message);
        goto done;
    }
    if (reader >= 0 && dg_cuda_set_sparse_reader(state, reader, &err) != DG_OK) {
        fail("sparse reader", &err);
        goto done;
    }
    if (ops->load_phi(state, phi0, 1, &err) != DG_OK || ops->set_omega(state, 1.9, &err) != DG_OK)
        goto failed;
    if (equation == EQ_NONLINEAR && ops->update_nonlinear_source(state, 1.0, &err) != DG_OK)
        goto failed;
    /* Warm-up; on the GPU until the autotune has timed every candidate (up to 2 x 80 + 1
       iterations, in blocks of 10). */
    if (time_blocks(ops, state, 0, 0.0, strcmp(ops->name, "cuda") == 0 ? 2 : 1, &err) < 0.0)
        goto failed;
    for (int block = 0; strcmp(ops->name, "cuda") == 0 && block < 20; ++block) {
        dg_cuda_info info;
        if (dg_cuda_get_info(state, &info, &err) != DG_OK) goto failed;
        if (!info.tuning) break;
        if (time_blocks(ops, state, 0, 0.0, 1, &err) < 0.0) goto failed;
    }
    ms = time_blocks(ops, state, equation == EQ_NONLINEAR, min_seconds, max_blocks, &err);
    if (ms < 0.0) goto failed;
    if (shape && strcmp(ops->name, "cuda") == 0) {
        dg_cuda_info info;
        if (dg_cuda_get_info(state, &info, &err) == DG_OK)
            shape->bx = info.block_x, shape->by = info.block_y, shape->depth = info.depth,
            shape->planes = info.planes;
    }
    goto done;
failed:
    fail(ops->name, &err);
    ms = -1.0;
done:
    ops->destroy(state);
    return ms;
}

static dg_backend_config gpu_config(int precision, int bx, int by, int autotune) {
    dg_backend_config c = {precision, 0, 0, bx, by, autotune};
    return c;
}

/* Bare sweeps (no lists, no checks): the roofline measurement.  Returns ms per iteration. */
static double sweep_only(const dg_prepared *prep, const double *phi0, int precision, int bx, int by,
                         int autotune, int checks, row *used) {
    const dg_backend_ops *ops = dg_cuda_backend();
    dg_backend_config config = gpu_config(precision, bx, by, autotune);
    dg_error err = {0};
    void *state = NULL;
    double ms = -1.0;
    dg_change change = {0};
    if (ops->create(&state, &config, &err) != DG_OK) return fail("create", &err), -1.0;
    if (ops->set_medium(state, prep, &err) != DG_OK || ops->load_phi(state, phi0, 1, &err) ||
        ops->set_omega(state, 1.9, &err) || ops->iterate(state, 20, 1, 1, &change, &err)) {
        printf("  (sweeps %d^3: %s)\n", prep->nx, err.message);
        goto done;
    }
    /* --checks: tune as the solver runs, in blocks of 10 with a check each */
    for (int block = 0; checks && block < 100; ++block) {
        dg_cuda_info info;
        if (dg_cuda_get_info(state, &info, &err) != DG_OK ||
            ops->iterate(state, 10, 1, 1, &change, &err) != DG_OK) {
            fail("iterate", &err);
            goto done;
        }
        if (!info.tuning) break;
    }
    int count = 20;
    for (;;) { /* double the count until the run takes 0.3 s */
        const double start = now();
        if (ops->iterate(state, count, 0, 1, &change, &err) ||
            ops->iterate(state, 1, 1, 1, &change, &err)) {
            fail("iterate", &err);
            goto done;
        }
        const double seconds = now() - start;
        ms = seconds * 1e3 / (count + 1);
        if (seconds > 0.3 || count >= 5000) break;
        count *= 2;
    }
    dg_cuda_info info;
    if (used && dg_cuda_get_info(state, &info, &err) == DG_OK) {
        used->bx = info.block_x, used->by = info.block_y;
        used->depth = info.depth, used->planes = info.planes;
        if (info.tune_count > 0) {
            printf("  autotune (%d^3 %s, fastest timed iteration, ms):", prep->nx,
                   precision == DG_PRECISION_FLOAT ? "float" : "double");
            for (int i = 0; i < info.tune_count; ++i)
                printf(" %dx%dd%dp%dw%d%s %.2f", info.tune_bx[i], info.tune_by[i],
                       info.tune_depth[i], info.tune_planes[i], info.tune_width[i],
                       info.tune_segments[i] ? "s" : "", info.tune_ms[i]);
            printf("; kept %dx%d d%d p%d w%d%s, %d z chunks\n", info.block_x, info.block_y,
                   info.depth, info.planes, info.width, info.segments ? "s" : "", info.zchunks);
        }
    }
done:
    ops->destroy(state);
    return ms;
}

static void print_rate(const char *label, int n, int precision, int equation, double ms,
                       double copy_gbs);

/* Bare sweeps of one fixed block shape with each sweep variant {planes per barrier, depth}, on
   one state. */
static void shape_row(const dg_prepared *prep, const double *phi0, int precision, int bx, int by,
                      double copy_gbs) {
    const dg_backend_ops *ops = dg_cuda_backend();
    dg_backend_config config = gpu_config(precision, bx, by, 0);
    dg_error err = {0};
    void *state = NULL;
    dg_change change = {0};
    if (ops->create(&state, &config, &err) != DG_OK) {
        fail("create", &err);
        return;
    }
    if (ops->set_medium(state, prep, &err) || ops->load_phi(state, phi0, 1, &err) ||
        ops->set_omega(state, 1.9, &err)) {
        fail("shape set-up", &err);
        ops->destroy(state);
        return;
    }
    static const int variants[][2] = {{1, 2}, {1, 3}, {2, 1}, {2, 2}};
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; ++v) {
        const int planes = variants[v][0], depth = variants[v][1];
        dg_cuda_info info;
        /* 1 plane first: every depth has a 1-plane kernel. */
        if (dg_cuda_set_planes_per_barrier(state, 1, &err) ||
            dg_cuda_set_prefetch_depth(state, depth, &err) ||
            dg_cuda_set_planes_per_barrier(state, planes, &err) ||
            ops->iterate(state, 10, 1, 1, &change, &err) || dg_cuda_get_info(state, &info, &err))
            break;
        int count = 40;
        double ms = -1.0;
        for (;;) {
            const double start = now();
            if (ops->iterate(state, count, 0, 1, &change, &err) ||
                ops->iterate(state, 1, 1, 1, &change, &err))
                break;
            const double seconds = now() - start;
            ms = seconds * 1e3 / (count + 1);
            if (seconds > 0.2 || count >= 5000) break;
            count *= 2;
        }
        char label[64];
        snprintf(label, sizeof label, "block %dx%d d%d p%d (%dz)", bx, by, info.depth, info.planes,
                 info.zchunks);
        if (ms > 0.0) print_rate(label, prep->nx, precision, EQ_POISSON, ms, copy_gbs);
    }
    if (err.message[0]) fail("shape", &err);
    ops->destroy(state);
}

static void print_rate(const char *label, int n, int precision, int equation, double ms,
                       double copy_gbs) {
    const double points = (double)(n - 2) * (n - 2) * (n - 2);
    const double gbs = points * bytes_per_point(precision, equation) / (ms * 1e-3) / 1e9;
    printf("%-26s %4d^3 %-6s %8.3f ms/it %8.2f Gupd/s %7.0f GB/s %5.1f %% of copy\n", label, n,
           precision == DG_PRECISION_FLOAT ? "float" : "double", ms, points / (ms * 1e-3) / 1e9,
           gbs, 100.0 * gbs / copy_gbs);
}

static int parse_sizes(const char *text, int *sizes) {
    int count = 0;
    while (*text && count < 8) {
        sizes[count++] = atoi(text);
        const char *comma = strchr(text, ',');
        if (!comma) break;
        text = comma + 1;
    }
    return count;
}

int main(int argc, char **argv) {
    int sizes[8] = {129, 257, 513, 769}, size_count = 4, cpu_max = 513, quick = 0;
    int only_sweeps = 0, first_precision = 1, last_precision = 0, fixed_bx = 0, fixed_by = 0;
    int skip_shapes = 0, skip_readers = 0, checks = 0;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
            size_count = parse_sizes(argv[++i], sizes);
        else if (!strcmp(argv[i], "--cpu-max") && i + 1 < argc)
            cpu_max = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--only-sweeps"))
            only_sweeps = 1;
        else if (!strcmp(argv[i], "--checks"))
            checks = 1;
        else if (!strcmp(argv[i], "--skip-shapes"))
            skip_shapes = 1;
        else if (!strcmp(argv[i], "--skip-readers"))
            skip_readers = 1;
        else if (!strcmp(argv[i], "--precision") && i + 1 < argc) {
            ++i;
            first_precision = last_precision = !strcmp(argv[i], "float") ? 1 : 0;
        } else if (!strcmp(argv[i], "--block") && i + 1 < argc &&
                   sscanf(argv[i + 1], "%dx%d", &fixed_bx, &fixed_by) == 2)
            ++i;
        else {
            fprintf(stderr, "usage: dg_bench_gpu [--sizes 129,257,513,769] [--cpu-max N] "
                            "[--quick] [--skip-shapes] [--skip-readers] [--only-sweeps "
                            "[--precision float|double] "
                            "[--block BXxBY] [--checks]]\n");
            return 2;
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0); /* progress survives a timeout when redirected */
    dg_error err = {0};
    int devices = 0;
    if (dg_cuda_count_devices(&devices, &err) != DG_OK || devices == 0) {
        printf("dg_bench_gpu: no usable CUDA device (%s)\n", err.message);
        return 77;
    }
    double copy_gbs = 0.0;
    if (dg_cuda_copy_bandwidth(0, (size_t)1 << 30, 20, &copy_gbs, &err) != DG_OK)
        return fail("copy bandwidth", &err);
    {
        void *state = NULL;
        dg_backend_config c = gpu_config(DG_PRECISION_FLOAT, 0, 0, 0);
        dg_cuda_info info;
        if (dg_cuda_backend()->create(&state, &c, &err) != DG_OK ||
            dg_cuda_get_info(state, &info, &err) != DG_OK)
            return fail("device", &err);
        printf("device: %s, %d SMs, %.0f MiB; CPU backend threads: %d\n", info.device_name,
               info.sm_count, info.total_mib, omp_get_max_threads());
        dg_cuda_backend()->destroy(state);
    }
    printf("device-to-device copy bandwidth: %.0f GB/s (read + write)\n\n", copy_gbs);
    const double min_gpu = quick ? 0.1 : 0.4, min_cpu = quick ? 0.3 : 1.0;

    /* 1. Bare sweeps: the single-sweep roofline (no lists, no checks), autotuned shape. */
    printf("== bare sweeps (Laplace: no lists, no checks), autotuned block shape ==\n");
    for (int s = 0; s < size_count; ++s) {
        dg_prepared prep;
        if (bench_build_problem(&prep, sizes[s], 0, BENCH_LISTS_NONE)) continue;
        double *phi0 = bench_initial_phi(sizes[s]);
        for (int p = first_precision; p >= last_precision && phi0; --p) {
            row used = {0};
            double ms =
                sweep_only(&prep, phi0, p, fixed_bx, fixed_by, fixed_bx == 0, checks, &used);
            if (ms <= 0.0) continue;
            char label[64];
            snprintf(label, sizeof label, "sweeps (%dx%d d%d p%d)", used.bx, used.by, used.depth,
                     used.planes);
            print_rate(label, sizes[s], p, EQ_POISSON, ms, copy_gbs);
            const double roof = copy_gbs / bytes_per_point(p, EQ_POISSON);
            const double points = (double)(sizes[s] - 2) * (sizes[s] - 2) * (sizes[s] - 2);
            printf("%26s %.1f %% of the single-sweep roofline (%.1f Gupd/s)\n", "",
                   100.0 * points / (ms * 1e-3) / 1e9 / roof, roof);
        }
        free(phi0);
        dg_prepared_free(&prep);
    }
    if (only_sweeps) return 0;

    /* 2. Block shapes at 513^3 (or the largest size below it), fixed shapes. */
    int shape_n = 0;
    for (int s = 0; s < size_count; ++s)
        if (sizes[s] <= 513 && sizes[s] > shape_n) shape_n = sizes[s];
    if (shape_n > 0 && !skip_shapes) {
        static const int shapes[][2] = {{16, 16}, {32, 8},  {32, 16}, {64, 8}, {32, 32},
                                        {64, 16}, {16, 32}, {34, 30}, {66, 15}};
        printf(
            "\n== block shapes x sweep variants (dD pP), bare sweeps at %d^3 (x counts pairs) ==\n",
            shape_n);
        dg_prepared prep;
        if (!bench_build_problem(&prep, shape_n, 0, BENCH_LISTS_NONE)) {
            double *phi0 = bench_initial_phi(shape_n);
            for (int p = 1; p >= 0 && phi0; --p)
                for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; ++k)
                    shape_row(&prep, phi0, p, shapes[k][0], shapes[k][1], copy_gbs);
            free(phi0);
            dg_prepared_free(&prep);
        }
    }

    /* 3. Correction lists through the read-only path or textures (stress medium). */
    if (shape_n > 0 && !skip_readers) {
        printf("\n== sparse reader: ~1 point in 7 a boundary point, %d^3 ==\n", shape_n);
        dg_prepared prep;
        if (!bench_build_problem(&prep, shape_n, 0, BENCH_LISTS_STRESS)) {
            printf("%d boundary points, %d charged points\n",
                   prep.boundary_count[0] + prep.boundary_count[1],
                   prep.charge_count[0] + prep.charge_count[1]);
            double *phi0 = bench_initial_phi(shape_n);
            for (int p = 1; p >= 0 && phi0; --p)
                for (int reader = 0; reader < 2; ++reader) {
                    dg_backend_config c = gpu_config(p, 16, 16, 0);
                    double ms = run_backend(dg_cuda_backend(), &c, &prep, phi0, EQ_POISSON, min_gpu,
                                            1000, NULL, reader);
                    printf("%-12s %-6s %8.3f ms/it\n", reader ? "texture" : "__ldg",
                           p ? "float" : "double", ms);
                }
            free(phi0);
            dg_prepared_free(&prep);
        }
    }

    /* 4. The solver's iterations: sphere medium, GPU (autotuned) and CPU (all cores). */
    printf("\n== iterations with checks every 10: dielectric sphere with charges ==\n");
    row rows[8 * 2 * EQ_COUNT];
    int nrows = 0;
    for (int s = 0; s < size_count; ++s) {
        const int n = sizes[s];
        double *phi0 = bench_initial_phi(n);
        for (int salt = 0; salt < 2 && phi0; ++salt) {
            dg_prepared prep;
            if (bench_build_problem(&prep, n, salt, BENCH_LISTS_SPHERE)) continue;
            if (!salt)
                printf("%d^3: %d boundary points, %d charged points\n", n,
                       prep.boundary_count[0] + prep.boundary_count[1],
                       prep.charge_count[0] + prep.charge_count[1]);
            for (int p = 1; p >= 0; --p)
                for (int eq = salt ? EQ_PB : EQ_POISSON; eq <= (salt ? EQ_NONLINEAR : EQ_POISSON);
                     ++eq) {
                    row *r = &rows[nrows];
                    r->n = n, r->precision = p, r->equation = eq;
                    r->bx = r->by = r->depth = r->planes = 0;
                    dg_backend_config gc = gpu_config(p, 0, 0, 1);
                    r->gpu_ms =
                        run_backend(dg_cuda_backend(), &gc, &prep, phi0, eq, min_gpu, 1000, r, -1);
                    r->cpu_ms = -1.0;
                    if (n <= cpu_max) {
                        dg_backend_config cc = {p, 0, 0, 0, 0, 0};
                        r->cpu_ms = run_backend(&dg_cpu_backend_ops, &cc, &prep, phi0, eq, min_cpu,
                                                n <= 257 ? 100 : 3, NULL, -1);
                    }
                    if (r->gpu_ms > 0.0) {
                        char label[64];
                        snprintf(label, sizeof label, "%s GPU", eq_name[eq]);
                        print_rate(label, n, p, eq, r->gpu_ms, copy_gbs);
                    }
                    ++nrows;
                }
            dg_prepared_free(&prep);
        }
        free(phi0);
    }

    printf("\n== summary (copy bandwidth %.0f GB/s; GB/s counts %s) ==\n", copy_gbs,
           "12/24 B per point, +1 PB, +4/8 NL");
    printf("%6s %-6s %-8s %9s %9s %8s %7s %13s %9s %8s\n", "size", "prec", "equation", "GPU ms/it",
           "Gupd/s", "GB/s", "%copy", "block", "CPU ms/it", "speed-up");
    for (int i = 0; i < nrows; ++i) {
        const row *r = &rows[i];
        const double points = (double)(r->n - 2) * (r->n - 2) * (r->n - 2);
        char gpu[16] = "n/a", upd[16] = "n/a", gbs[16] = "n/a", pct[16] = "n/a";
        char cpu[16] = "n/a", speed[16] = "n/a", block[32] = "n/a";
        if (r->gpu_ms > 0.0) {
            const double rate = points / (r->gpu_ms * 1e-3);
            const double bw = rate * bytes_per_point(r->precision, r->equation) / 1e9;
            snprintf(gpu, sizeof gpu, "%.3f", r->gpu_ms);
            snprintf(upd, sizeof upd, "%.2f", rate / 1e9);
            snprintf(gbs, sizeof gbs, "%.0f", bw);
            snprintf(pct, sizeof pct, "%.1f", 100.0 * bw / copy_gbs);
            snprintf(block, sizeof block, "%dx%d d%dp%d", r->bx, r->by, r->depth, r->planes);
        }
        if (r->cpu_ms > 0.0) snprintf(cpu, sizeof cpu, "%.2f", r->cpu_ms);
        if (r->cpu_ms > 0.0 && r->gpu_ms > 0.0)
            snprintf(speed, sizeof speed, "%.1fx", r->cpu_ms / r->gpu_ms);
        printf("%4d^3 %-6s %-8s %9s %9s %8s %7s %13s %9s %8s\n", r->n,
               r->precision == DG_PRECISION_FLOAT ? "float" : "double", eq_name[r->equation], gpu,
               upd, gbs, pct, block, cpu, speed);
    }
    return 0;
}
