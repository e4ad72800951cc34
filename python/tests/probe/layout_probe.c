/* Test helper for python/tests/test_layout.py: sizes and field offsets of the C structs the
 * Python package mirrors with ctypes, as the C compiler lays them out.  Built as a small shared
 * library with the tests (not part of libdelphi_gpu). */
#include <stddef.h>
#include <string.h>

#include "delphi_gpu/delphi_gpu_calc.h"

#if defined(__GNUC__)
#define PROBE_API __attribute__((visibility("default")))
#else
#define PROBE_API
#endif

typedef struct layout_entry {
    const char *type, *field;
    long value;
} layout_entry;

#define FIELD(T, F)                                                                                \
    { #T, #F, (long)offsetof(T, F) }
#define SIZE(T)                                                                                    \
    { #T, "", (long)sizeof(T) }

static const layout_entry entries[] = {
    SIZE(dg_options),
    SIZE(dg_salt),
    SIZE(dg_calc_params),
    SIZE(dg_atoms),
    SIZE(dg_calc_grid),
    SIZE(dg_result),
    SIZE(dg_calc_energies),
    SIZE(dg_calc_timing),
    SIZE(dg_calc_result),
    FIELD(dg_options, struct_size),
    FIELD(dg_options, version),
    FIELD(dg_options, backend),
    FIELD(dg_options, precision),
    FIELD(dg_options, device),
    FIELD(dg_options, num_threads),
    FIELD(dg_options, block_x),
    FIELD(dg_options, block_y),
    FIELD(dg_options, autotune),
    FIELD(dg_options, equation),
    FIELD(dg_options, omega),
    FIELD(dg_options, spectral_radius),
    FIELD(dg_options, iterations),
    FIELD(dg_options, run_until_converged),
    FIELD(dg_options, max_iterations),
    FIELD(dg_options, check_interval),
    FIELD(dg_options, check_stride),
    FIELD(dg_options, rms_change_tol),
    FIELD(dg_options, max_change_tol),
    FIELD(dg_options, norm_change_tol),
    FIELD(dg_options, nonlinear_blocks),
    FIELD(dg_options, relpar),
    FIELD(dg_options, qfact),
    FIELD(dg_options, divergence_checks),
    FIELD(dg_options, divergence_factor),
    FIELD(dg_options, progress),
    FIELD(dg_options, progress_user_data),
    FIELD(dg_options, solver),
    FIELD(dg_options, nonlinear_method),
    FIELD(dg_options, nonlinear_term),
    FIELD(dg_options, mpi_comm),
    FIELD(dg_options, periodic),
    FIELD(dg_salt, concentration),
    FIELD(dg_salt, cation_valence),
    FIELD(dg_salt, anion_valence),
    FIELD(dg_calc_params, struct_size),
    FIELD(dg_calc_params, version),
    FIELD(dg_calc_params, scale),
    FIELD(dg_calc_params, perfil),
    FIELD(dg_calc_params, grid_size),
    FIELD(dg_calc_params, center_mode),
    FIELD(dg_calc_params, center),
    FIELD(dg_calc_params, epsilon_in),
    FIELD(dg_calc_params, epsilon_out),
    FIELD(dg_calc_params, probe_radius),
    FIELD(dg_calc_params, ion_radius),
    FIELD(dg_calc_params, surface),
    FIELD(dg_calc_params, temperature),
    FIELD(dg_calc_params, salts),
    FIELD(dg_calc_params, salt_count),
    FIELD(dg_calc_params, boundary),
    FIELD(dg_calc_params, energies),
    FIELD(dg_calc_params, solvation_two_run),
    FIELD(dg_calc_params, solver),
    FIELD(dg_calc_params, stage_progress),
    FIELD(dg_calc_params, stage_progress_user_data),
    FIELD(dg_calc_params, coarse_scale),
    FIELD(dg_calc_params, coarse_perfil),
    FIELD(dg_atoms, count),
    FIELD(dg_atoms, position),
    FIELD(dg_atoms, charge),
    FIELD(dg_atoms, radius),
    FIELD(dg_calc_grid, n),
    FIELD(dg_calc_grid, scale),
    FIELD(dg_calc_grid, center),
    FIELD(dg_calc_grid, origin),
    FIELD(dg_result, outcome),
    FIELD(dg_result, iterations),
    FIELD(dg_result, linear_iterations),
    FIELD(dg_result, nonlinear_blocks),
    FIELD(dg_result, checks),
    FIELD(dg_result, max_change),
    FIELD(dg_result, rms_change),
    FIELD(dg_result, norm_change),
    FIELD(dg_result, spectral_radius),
    FIELD(dg_result, omega),
    FIELD(dg_result, final_relpar),
    FIELD(dg_result, estimated_iterations),
    FIELD(dg_result, backend),
    FIELD(dg_result, precision),
    FIELD(dg_result, equation),
    FIELD(dg_result, setup_seconds),
    FIELD(dg_result, solve_seconds),
    FIELD(dg_result, total_seconds),
    FIELD(dg_result, solver),
    FIELD(dg_calc_energies, grid),
    FIELD(dg_calc_energies, coulombic),
    FIELD(dg_calc_energies, reaction_field),
    FIELD(dg_calc_energies, self_reaction),
    FIELD(dg_calc_energies, total_reaction_field),
    FIELD(dg_calc_energies, ionic_rho_phi),
    FIELD(dg_calc_energies, ionic_osmotic),
    FIELD(dg_calc_energies, ionic_total),
    FIELD(dg_calc_energies, grid_reference),
    FIELD(dg_calc_energies, solvation_two_run),
    FIELD(dg_calc_timing, grid),
    FIELD(dg_calc_timing, surface),
    FIELD(dg_calc_timing, medium),
    FIELD(dg_calc_timing, charges),
    FIELD(dg_calc_timing, boundary),
    FIELD(dg_calc_timing, solve),
    FIELD(dg_calc_timing, energies),
    FIELD(dg_calc_timing, reference),
    FIELD(dg_calc_timing, coarse),
    FIELD(dg_calc_timing, total),
    FIELD(dg_calc_result, grid),
    FIELD(dg_calc_result, solve),
    FIELD(dg_calc_result, reference_solve),
    FIELD(dg_calc_result, energies),
    FIELD(dg_calc_result, timing),
    FIELD(dg_calc_result, boundary_points),
    FIELD(dg_calc_result, charged_points),
    FIELD(dg_calc_result, induced_charge),
    FIELD(dg_calc_result, expected_induced_charge),
    FIELD(dg_calc_result, atoms_outside),
    FIELD(dg_calc_result, sites_outside),
    FIELD(dg_calc_result, backend),
    FIELD(dg_calc_result, coarse_grid),
    FIELD(dg_calc_result, coarse_solve),
    SIZE(dg_calc_binding),
    FIELD(dg_calc_binding, atoms),
    FIELD(dg_calc_binding, net_charge),
    FIELD(dg_calc_binding, energy),
    FIELD(dg_calc_binding, salt),
    FIELD(dg_calc_binding, salt_share),
    FIELD(dg_calc_binding, grid_energy),
    FIELD(dg_calc_binding, bound),
    FIELD(dg_calc_binding, partner),
    FIELD(dg_calc_binding, difference),
    FIELD(dg_calc_binding, solve),
    FIELD(dg_calc_binding, reference_solve),
    FIELD(dg_calc_binding, salt_free_solve),
    FIELD(dg_calc_binding, timing),
    FIELD(dg_calc_binding, coarse_solve),
    FIELD(dg_calc_binding, coarse_salt_free_solve),
};

/* Offset of `field` in struct `type`, or its size when field is ""; -1 when unknown. */
PROBE_API long dg_probe_layout(const char *type, const char *field) {
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++)
        if (strcmp(entries[i].type, type) == 0 && strcmp(entries[i].field, field) == 0)
            return entries[i].value;
    return -1;
}

/* Number of fields the probe lists for `type` (the mirror must list as many). */
PROBE_API int dg_probe_field_count(const char *type) {
    int n = 0;
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++)
        if (strcmp(entries[i].type, type) == 0 && entries[i].field[0]) n++;
    return n;
}
