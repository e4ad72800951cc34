/* dg_solve_f / dg_solve_d: check phi, load it, run the loop, store the result. */
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_pool.h"
#include "mg/mg.h"
#include "solver_internal.h"
#include "transfer_host.h"

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
   multigrid solve on CUDA runs it on a thread of its own beside the device's set-up, which packs
   phi's faces first; the solve takes its verdict before phi goes up, or, when the check is
   still running then and a sample of the interior is zero, before it writes its answer
   (kernels/cuda_mg.cu, "phi's check"). */
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
    int done;    /* the pass has ended (atomic: set on the check's thread) */
    double seconds;
    /* multigrid on CUDA: the faces packed first (es-byte elements), for their upload while the
       check runs; faces_state 0 while packing, 1 packed, -1 not packed (atomic) */
    size_t es;
    void *faces;
    int pack_faces, faces_state;
} phi_check;

static void *phi_check_run(void *context) {
    phi_check *c = context;
    const double start = dg_wall_seconds();
    if (c->pack_faces) {
        const size_t count = dg_face_count((int)c->nx, (int)c->ny, (int)c->nz);
        c->faces = malloc(count * c->es);
        if (c->faces)
            dg_face_pack(c->faces, c->phi, c->es, (int)c->nx, (int)c->ny, (int)c->nz, 0, count,
                         c->where.threads);
        __atomic_store_n(&c->faces_state, c->faces ? 1 : -1, __ATOMIC_RELEASE);
    }
    dg_host_for(c->where, c->rows, c->grain, c->range, c);
    c->seconds = dg_wall_seconds() - start;
    __atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* The multigrid path's wait (dg_phi_check_view.wait): 1 when every interior value is +0.0, 0
   when not, -1 when phi holds a non-finite value; DG_MG_CHECK_RUNNING when the check has not
   ended and block is 0. */
static int phi_check_wait(void *context, int block) {
    phi_check *c = context;
    if (c->running && !block && !__atomic_load_n(&c->done, __ATOMIC_ACQUIRE))
        return DG_MG_CHECK_RUNNING;
    if (c->running) {
        pthread_join(c->thread, NULL);
        c->running = 0;
    }
    return c->bad ? -1 : c->interior_bits == 0;
}

/* The multigrid path's faces (dg_phi_check_view.faces): packed by the check's thread before it
   checks (a job of a few milliseconds on the host pool, which the check then holds). */
static const void *phi_check_faces(void *context) {
    phi_check *c = context;
    if (!c->pack_faces) return NULL;
    while (__atomic_load_n(&c->faces_state, __ATOMIC_ACQUIRE) == 0)
        sched_yield();
    return c->faces_state == 1 ? c->faces : NULL;
}

#define DG_TEMPLATE "solve_template.h"
#include "for_each_precision.h" /* solve_impl_f, solve_impl_d */

int dg_solve_f(dg_solver s, float *phi, dg_result *result) {
    dg_mpi_entry_begin(s);
    return dg_mpi_entry_agree(s, solve_impl_f(s, phi, result), "start its solve");
}
int dg_solve_d(dg_solver s, double *phi, dg_result *result) {
    dg_mpi_entry_begin(s);
    return dg_mpi_entry_agree(s, solve_impl_d(s, phi, result), "start its solve");
}
