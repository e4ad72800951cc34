/* Instrumentation of the DelPhi-convention entry points (delphi_compat.c), for benchmarks such as
 * kit_bench: where the latest call on this thread spent its time. */
#ifndef DG_DELPHI_COMPAT_INTERNAL_H
#define DG_DELPHI_COMPAT_INTERNAL_H

/** Wall seconds of the parts of one dg_delphi_itit_* / dg_delphi_nitit_* call, in call order.
 *  Parts that did not run are 0. */
typedef struct dg_delphi_timing {
    double check;      /* checking the arguments and control values */
    double handle;     /* creating the solver, or taking the kept one and setting its options */
    double prepare;    /* DelPhi's lists and salt factors turned into the prepared medium (host) */
    double upload;     /* the prepared medium handed to the backend (set_medium) */
    double check_phi;  /* phimap scanned for NaN/Inf */
    double load;       /* phimap into the backend's half grids */
    double spectral;   /* the iteration plan and omega (the spectral radius is DelPhi's spec) */
    double loop;       /* the iterations (DelPhi's loop) */
    double store;      /* the half grids back into phimap's interior */
    double store_wait; /* of store: waiting for the device's merge and copies (0 on the CPU) */
    double finish;     /* db, sf1, sf2, qval scaled by omega; phi(1,1,1)'s signature */
    double scaling;    /* of the omega scaling itself (on the GPU beside the loop, not in finish) */
    double scaling_late; /* how long after the loop's end the scaling ended (0: before it) */
    double release;      /* destroying a solver that is not kept */
    double total;        /* the whole call */
    int reused;          /* 1 when the solver kept from an earlier call served this one */
} dg_delphi_timing;

/** The parts of the latest DelPhi-convention call made on the calling thread (zeros before the
 *  first). */
void dg_delphi_last_timing(dg_delphi_timing *timing);

/** Destroy the solver the entry points keep between calls (a no-op when none is kept or another
 *  thread is using it).  The next call creates a new one. */
void dg_delphi_drop_kept_solver(void);

#endif /* DG_DELPHI_COMPAT_INTERNAL_H */
