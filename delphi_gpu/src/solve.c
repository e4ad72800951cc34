/* dg_solve_f / dg_solve_d: check phi, load it, run the loop, store the result. */
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <string.h>

#include "host_pool.h"
#include "solver_internal.h"

/* Points per range of phi's check on the host pool (whole rows, at least one). */
#define CHECK_ROW_POINTS 16384

/* The bits of a value: 0 exactly for +0.0. */
static inline unsigned long long value_bits_f(float v) {
    unsigned int bits;
    memcpy(&bits, &v, sizeof bits);
    return bits;
}
static inline unsigned long long value_bits_d(double v) {
    unsigned long long bits;
    memcpy(&bits, &v, sizeof bits);
    return bits;
}

/* phi's check over grid rows (y, z): non-finite values counted, and the bit patterns of the
   interior values or-ed (all +0.0: a fresh solve, whose backend need read only the faces).  A
   multigrid solve on CUDA runs it on a thread of its own beside the device's set-up (the
   allocations and clears of the hierarchy), and waits for it before phi goes up. */
typedef struct phi_check {
    const void *phi; /* REAL of the template */
    long nx, ny, nz;
    long bad;
    unsigned long long interior_bits;
    void (*range)(void *context, size_t begin, size_t end);
    dg_host_loop where;
    size_t rows, grain;
    pthread_t thread;
    int running; /* on its thread, not yet joined */
    double seconds;
} phi_check;

static void *phi_check_run(void *context) {
    phi_check *c = context;
    const double start = dg_wall_seconds();
    dg_host_for(c->where, c->rows, c->grain, c->range, c);
    c->seconds = dg_wall_seconds() - start;
    return NULL;
}

/* The multigrid path's wait (dg_solver.mg_check_wait): 1 when every interior value is +0.0, 0
   when not, -1 when phi holds a non-finite value. */
static int phi_check_wait(void *context) {
    phi_check *c = context;
    if (c->running) {
        pthread_join(c->thread, NULL);
        c->running = 0;
    }
    return c->bad ? -1 : c->interior_bits == 0;
}

#define DG_TEMPLATE "solve_template.h"
#include "for_each_precision.h" /* solve_impl_f, solve_impl_d */

int dg_solve_f(dg_solver s, float *phi, dg_result *result) {
    return solve_impl_f(s, phi, result);
}
int dg_solve_d(dg_solver s, double *phi, dg_result *result) {
    return solve_impl_d(s, phi, result);
}
