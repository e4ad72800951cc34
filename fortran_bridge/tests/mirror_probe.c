/* Test helper: sizes, field offsets and constants of the C API as the C compiler sees them, for
 * the Fortran mirror test (test_fortran_mirror.F90 lists the same fields in the same order). */
#include <stddef.h>

#include "delphi_gpu/delphi_compat.h"
#include "delphi_gpu/delphi_gpu.h"
#include "delphi_gpu/delphi_gpu_calc.h"

#define OFF(type, field) (long)offsetof(type, field)

/* Fill size and offsets of struct `which` (numbering as in the Fortran test); returns the number
   of fields, or -1 for an unknown struct or too small a buffer. */
int probe_struct(int which, long *size, long *offsets, int capacity) {
    long o[40];
    int n = 0;
    switch (which) {
    case 1: {
        typedef dg_options T;
        long v[] = {OFF(T, struct_size),
                    OFF(T, version),
                    OFF(T, backend),
                    OFF(T, precision),
                    OFF(T, device),
                    OFF(T, num_threads),
                    OFF(T, block_x),
                    OFF(T, block_y),
                    OFF(T, autotune),
                    OFF(T, equation),
                    OFF(T, omega),
                    OFF(T, spectral_radius),
                    OFF(T, iterations),
                    OFF(T, run_until_converged),
                    OFF(T, max_iterations),
                    OFF(T, check_interval),
                    OFF(T, check_stride),
                    OFF(T, rms_change_tol),
                    OFF(T, max_change_tol),
                    OFF(T, norm_change_tol),
                    OFF(T, nonlinear_blocks),
                    OFF(T, relpar),
                    OFF(T, qfact),
                    OFF(T, divergence_checks),
                    OFF(T, divergence_factor),
                    OFF(T, progress),
                    OFF(T, progress_user_data),
                    OFF(T, solver),
                    OFF(T, nonlinear_method),
                    OFF(T, nonlinear_term),
                    OFF(T, mpi_comm),
                    OFF(T, periodic)};
        n = (int)(sizeof v / sizeof v[0]);
        for (int i = 0; i < n; ++i)
            o[i] = v[i];
        *size = (long)sizeof(T);
        break;
    }
    case 2: {
        typedef dg_progress T;
        long v[] = {OFF(T, iteration),  OFF(T, phase),           OFF(T, nonlinear_block),
                    OFF(T, max_change), OFF(T, rms_change),      OFF(T, norm_change),
                    OFF(T, omega),      OFF(T, estimated_total), OFF(T, elapsed_seconds),
                    OFF(T, solver)};
        n = (int)(sizeof v / sizeof v[0]);
        for (int i = 0; i < n; ++i)
            o[i] = v[i];
        *size = (long)sizeof(T);
        break;
    }
    case 3: {
        typedef dg_result T;
        long v[] = {OFF(T, outcome),
                    OFF(T, iterations),
                    OFF(T, linear_iterations),
                    OFF(T, nonlinear_blocks),
                    OFF(T, checks),
                    OFF(T, max_change),
                    OFF(T, rms_change),
                    OFF(T, norm_change),
                    OFF(T, spectral_radius),
                    OFF(T, omega),
                    OFF(T, final_relpar),
                    OFF(T, estimated_iterations),
                    OFF(T, backend),
                    OFF(T, precision),
                    OFF(T, equation),
                    OFF(T, setup_seconds),
                    OFF(T, solve_seconds),
                    OFF(T, total_seconds),
                    OFF(T, solver)};
        n = (int)(sizeof v / sizeof v[0]);
        for (int i = 0; i < n; ++i)
            o[i] = v[i];
        *size = (long)sizeof(T);
        break;
    }
#define SPARSE_FIELDS(T)                                                                           \
    {                                                                                              \
        OFF(T, nx), OFF(T, ny), OFF(T, nz), OFF(T, index_kind), OFF(T, boundary_count_odd),        \
            OFF(T, boundary_count), OFF(T, boundary_index), OFF(T, boundary_weights),              \
            OFF(T, charge_count_odd), OFF(T, charge_count), OFF(T, charge_index),                  \
            OFF(T, charge_source), OFF(T, salt_model), OFF(T, salt_factor_odd),                    \
            OFF(T, salt_factor_even), OFF(T, solvent_flag), OFF(T, salt_factor),                   \
            OFF(T, nonlinear_coefficient), OFF(T, chi)                                             \
    }
    case 4: {
        long v[] = SPARSE_FIELDS(dg_sparse_medium_f);
        n = (int)(sizeof v / sizeof v[0]);
        for (int i = 0; i < n; ++i)
            o[i] = v[i];
        *size = (long)sizeof(dg_sparse_medium_f);
        break;
    }
    case 5: {
        long v[] = SPARSE_FIELDS(dg_sparse_medium_d);
        n = (int)(sizeof v / sizeof v[0]);
        for (int i = 0; i < n; ++i)
            o[i] = v[i];
        *size = (long)sizeof(dg_sparse_medium_d);
        break;
    }
#define DENSE_FIELDS(T)                                                                            \
    {                                                                                              \
        OFF(T, nx), OFF(T, ny), OFF(T, nz), OFF(T, scale), OFF(T, temperature), OFF(T, eps_x),     \
            OFF(T, eps_y), OFF(T, eps_z), OFF(T, medium_x), OFF(T, medium_y), OFF(T, medium_z),    \
            OFF(T, medium_epsilon), OFF(T, medium_count), OFF(T, charge),                          \
            OFF(T, charge_list_index), OFF(T, charge_list_value), OFF(T, charge_list_count),       \
            OFF(T, ion_accessible), OFF(T, salts), OFF(T, salt_count), OFF(T, epsilon_solvent)     \
    }
    case 6: {
        long v[] = DENSE_FIELDS(dg_dense_medium_f);
        n = (int)(sizeof v / sizeof v[0]);
        for (int i = 0; i < n; ++i)
            o[i] = v[i];
        *size = (long)sizeof(dg_dense_medium_f);
        break;
    }
    case 7: {
        long v[] = DENSE_FIELDS(dg_dense_medium_d);
        n = (int)(sizeof v / sizeof v[0]);
        for (int i = 0; i < n; ++i)
            o[i] = v[i];
        *size = (long)sizeof(dg_dense_medium_d);
        break;
    }
    case 8: {
        typedef dg_salt T;
        long v[] = {OFF(T, concentration), OFF(T, cation_valence), OFF(T, anion_valence)};
        n = (int)(sizeof v / sizeof v[0]);
        for (int i = 0; i < n; ++i)
            o[i] = v[i];
        *size = (long)sizeof(T);
        break;
    }
    case 9: {
        typedef dg_sparse_counts T;
        long v[] = {OFF(T, boundary_count_odd), OFF(T, boundary_count), OFF(T, charge_count_odd),
                    OFF(T, charge_count), OFF(T, charges_not_interior)};
        n = (int)(sizeof v / sizeof v[0]);
        for (int i = 0; i < n; ++i)
            o[i] = v[i];
        *size = (long)sizeof(T);
        break;
    }
    case 10: {
        typedef dg_delphi_control T;
        long v[] = {OFF(T, struct_size),
                    OFF(T, version),
                    OFF(T, igrid),
                    OFF(T, nlit),
                    OFF(T, nonit),
                    OFF(T, icon1),
                    OFF(T, icon2),
                    OFF(T, automatic),
                    OFF(T, manual_relpar),
                    OFF(T, periodic),
                    OFF(T, diff),
                    OFF(T, chebyshev),
                    OFF(T, ionic_strength),
                    OFF(T, rmsc),
                    OFF(T, maxc),
                    OFF(T, normc),
                    OFF(T, gten),
                    OFF(T, epsout),
                    OFF(T, deblen),
                    OFF(T, scale),
                    OFF(T, chi),
                    OFF(T, relpar),
                    OFF(T, backend),
                    OFF(T, device),
                    OFF(T, num_threads),
                    OFF(T, progress),
                    OFF(T, progress_user_data),
                    OFF(T, mixed_precision),
                    OFF(T, gpu_min_points)};
        n = (int)(sizeof v / sizeof v[0]);
        for (int i = 0; i < n; ++i)
            o[i] = v[i];
        *size = (long)sizeof(T);
        break;
    }
    case 11: {
        typedef dg_delphi_report T;
        long v[] = {OFF(T, result), OFF(T, nlit),   OFF(T, icon1),  OFF(T, relpar),
                    OFF(T, omega),  OFF(T, notice), OFF(T, message)};
        n = (int)(sizeof v / sizeof v[0]);
        for (int i = 0; i < n; ++i)
            o[i] = v[i];
        *size = (long)sizeof(T);
        break;
    }
    case 12: {
        typedef dg_calc_params T;
        long v[] = {OFF(T, struct_size),  OFF(T, version),        OFF(T, scale),
                    OFF(T, perfil),       OFF(T, grid_size),      OFF(T, center_mode),
                    OFF(T, center),       OFF(T, epsilon_in),     OFF(T, epsilon_out),
                    OFF(T, probe_radius), OFF(T, ion_radius),     OFF(T, surface),
                    OFF(T, temperature),  OFF(T, salts),          OFF(T, salt_count),
                    OFF(T, boundary),     OFF(T, energies),       OFF(T, solvation_two_run),
                    OFF(T, solver),       OFF(T, stage_progress), OFF(T, stage_progress_user_data),
                    OFF(T, coarse_scale), OFF(T, coarse_perfil)};
        n = (int)(sizeof v / sizeof v[0]);
        for (int i = 0; i < n; ++i)
            o[i] = v[i];
        *size = (long)sizeof(T);
        break;
    }
    case 13: {
        typedef dg_atoms T;
        long v[] = {OFF(T, count), OFF(T, position), OFF(T, charge), OFF(T, radius)};
        n = (int)(sizeof v / sizeof v[0]);
        for (int i = 0; i < n; ++i)
            o[i] = v[i];
        *size = (long)sizeof(T);
        break;
    }
    case 14: {
        typedef dg_calc_grid T;
        long v[] = {OFF(T, n), OFF(T, scale), OFF(T, center), OFF(T, origin)};
        n = (int)(sizeof v / sizeof v[0]);
        for (int i = 0; i < n; ++i)
            o[i] = v[i];
        *size = (long)sizeof(T);
        break;
    }
    case 15: {
        typedef dg_calc_energies T;
        long v[] = {OFF(T, grid),
                    OFF(T, coulombic),
                    OFF(T, reaction_field),
                    OFF(T, self_reaction),
                    OFF(T, total_reaction_field),
                    OFF(T, ionic_rho_phi),
                    OFF(T, ionic_osmotic),
                    OFF(T, ionic_total),
                    OFF(T, grid_reference),
                    OFF(T, solvation_two_run)};
        n = (int)(sizeof v / sizeof v[0]);
        for (int i = 0; i < n; ++i)
            o[i] = v[i];
        *size = (long)sizeof(T);
        break;
    }
    case 16: {
        typedef dg_calc_timing T;
        long v[] = {OFF(T, grid),     OFF(T, surface), OFF(T, medium),   OFF(T, charges),
                    OFF(T, boundary), OFF(T, solve),   OFF(T, energies), OFF(T, reference),
                    OFF(T, coarse),   OFF(T, total)};
        n = (int)(sizeof v / sizeof v[0]);
        for (int i = 0; i < n; ++i)
            o[i] = v[i];
        *size = (long)sizeof(T);
        break;
    }
    case 17: {
        typedef dg_calc_result T;
        long v[] = {OFF(T, grid),           OFF(T, solve),          OFF(T, reference_solve),
                    OFF(T, energies),       OFF(T, timing),         OFF(T, boundary_points),
                    OFF(T, charged_points), OFF(T, induced_charge), OFF(T, expected_induced_charge),
                    OFF(T, atoms_outside),  OFF(T, sites_outside),  OFF(T, backend),
                    OFF(T, coarse_grid),    OFF(T, coarse_solve)};
        n = (int)(sizeof v / sizeof v[0]);
        for (int i = 0; i < n; ++i)
            o[i] = v[i];
        *size = (long)sizeof(T);
        break;
    }
    case 18: {
        typedef dg_calc_binding T;
        long v[] = {OFF(T, atoms),  OFF(T, net_charge),      OFF(T, energy),
                    OFF(T, salt),   OFF(T, salt_share),      OFF(T, grid_energy),
                    OFF(T, bound),  OFF(T, partner),         OFF(T, difference),
                    OFF(T, solve),  OFF(T, reference_solve), OFF(T, salt_free_solve),
                    OFF(T, timing), OFF(T, coarse_solve),    OFF(T, coarse_salt_free_solve)};
        n = (int)(sizeof v / sizeof v[0]);
        for (int i = 0; i < n; ++i)
            o[i] = v[i];
        *size = (long)sizeof(T);
        break;
    }
    default:
        return -1;
    }
    if (n > capacity) return -1;
    for (int i = 0; i < n; ++i)
        offsets[i] = o[i];
    return n;
}

/* The constants, in the order of the Fortran test's list. */
static const int constants[] = {DG_VERSION_MAJOR,
                                DG_VERSION_MINOR,
                                DG_VERSION_PATCH,
                                DG_OPTIONS_VERSION,
                                DG_DELPHI_CONTROL_VERSION,
                                DG_MIN_GRID_SIZE,
                                DG_DELPHI_NOTICE_LENGTH,
                                DG_DELPHI_MESSAGE_LENGTH,
                                DG_OK,
                                DG_ERR_INVALID_ARGUMENT,
                                DG_ERR_INVALID_GRID,
                                DG_ERR_NONFINITE_INPUT,
                                DG_ERR_INDEX_OUT_OF_RANGE,
                                DG_ERR_WRONG_PARITY,
                                DG_ERR_COUNT_MISMATCH,
                                DG_ERR_BAD_PERMITTIVITY,
                                DG_ERR_BAD_OMEGA,
                                DG_ERR_BACKEND_NOT_BUILT,
                                DG_ERR_NO_DEVICE,
                                DG_ERR_DEVICE,
                                DG_ERR_OUT_OF_MEMORY,
                                DG_ERR_DEVICE_OUT_OF_MEMORY,
                                DG_ERR_STATE,
                                DG_ERR_UNSUPPORTED,
                                DG_ERR_INTERNAL,
                                DG_STATUS_COUNT,
                                DG_BACKEND_AUTO,
                                DG_BACKEND_CPU,
                                DG_BACKEND_CUDA,
                                DG_PRECISION_DOUBLE,
                                DG_PRECISION_FLOAT,
                                DG_PRECISION_MIXED,
                                DG_PERIODIC_X,
                                DG_PERIODIC_Y,
                                DG_PERIODIC_Z,
                                DG_SOLVER_SOR,
                                DG_SOLVER_MULTIGRID,
                                DG_SOLVER_AUTO,
                                DG_NONLINEAR_DELPHI,
                                DG_NONLINEAR_NEWTON,
                                DG_NONLINEAR_TERM_AUTO,
                                DG_NONLINEAR_TERM_POLYNOMIAL,
                                DG_NONLINEAR_TERM_EXACT,
                                DG_EQUATION_AUTO,
                                DG_EQUATION_LINEAR,
                                DG_EQUATION_NONLINEAR_PB,
                                DG_INDEX_DELPHI_HALF,
                                DG_INDEX_FULL,
                                DG_SALT_NONE,
                                DG_SALT_PER_POINT,
                                DG_SALT_FLAG,
                                DG_OUTCOME_CONVERGED,
                                DG_OUTCOME_COMPLETED,
                                DG_OUTCOME_NOT_CONVERGED,
                                DG_OUTCOME_DIVERGED,
                                DG_OUTCOME_STOPPED,
                                DG_OUTCOME_FLOAT_RESOLUTION,
                                DG_PHASE_LINEAR,
                                DG_PHASE_NONLINEAR,
                                DG_DELPHI_GPU_MIN_POINTS};

static int copy_constants(const int *from, int n, int *values, int capacity) {
    if (n > capacity) return -1;
    for (int i = 0; i < n; ++i)
        values[i] = from[i];
    return n;
}

int probe_constants(int *values, int capacity) {
    return copy_constants(constants, (int)(sizeof constants / sizeof constants[0]), values,
                          capacity);
}

/* The calculation layer's constants (module delphi_gpu_calc), in the Fortran test's order. */
static const int calc_constants[] = {
    DG_CALC_PARAMS_VERSION,   DG_BOUNDARY_ZERO,     DG_BOUNDARY_DIPOLAR, DG_BOUNDARY_FOCUSING,
    DG_BOUNDARY_COULOMBIC,    DG_SURFACE_MOLECULAR, DG_SURFACE_VDW,      DG_CENTER_BOX,
    DG_CENTER_ABSOLUTE,       DG_CENTER_OFFSET,     DG_ENERGY_GRID,      DG_ENERGY_COULOMBIC,
    DG_ENERGY_REACTION_FIELD, DG_ENERGY_IONIC};

int probe_calc_constants(int *values, int capacity) {
    return copy_constants(calc_constants, (int)(sizeof calc_constants / sizeof calc_constants[0]),
                          values, capacity);
}
