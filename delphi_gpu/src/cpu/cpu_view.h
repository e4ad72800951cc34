/* What the CPU backend's Newton kernels (cpu_newton.c) read of the CPU backend's state. */
#ifndef DG_CPU_VIEW_H
#define DG_CPU_VIEW_H

#include "../prepared.h"

typedef struct dg_cpu_view {
    const dg_prepared *prep;
    void *phi[2]; /* half grids, working precision */
    int is_float;
    int threads;
    long offsets[2][6];
} dg_cpu_view;

/** Fill a view of a CPU backend state (from dg_cpu_backend_ops.create). */
void dg_cpu_view_of(void *state, dg_cpu_view *view);

#endif /* DG_CPU_VIEW_H */
