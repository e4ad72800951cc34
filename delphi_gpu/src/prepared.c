/* Allocation and grid set-up of the prepared problem. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delphi_gpu/delphi_gpu_types.h"
#include "prepared.h"

void dg_prepared_free(dg_prepared *prep) {
    for (int c = 0; c < 2; ++c) {
        free(prep->flag[c]);
        free(prep->boundary_index[c]);
        free(prep->boundary_weight[c]);
        free(prep->charge_index[c]);
        free(prep->charge_source[c]);
        free(prep->seam_index[c]);
        free(prep->seam_axes[c]);
        free(prep->seam_coef[c]);
    }
    memset(prep, 0, sizeof *prep);
}

int dg_prepared_init_grid(dg_prepared *prep, int nx, int ny, int nz, char *message, size_t size) {
    memset(prep, 0, sizeof *prep);
    const int dims[3] = {nx, ny, nz};
    const char *names[3] = {"nx", "ny", "nz"};
    for (int a = 0; a < 3; ++a) {
        if (dims[a] < DG_MIN_GRID_SIZE) {
            snprintf(message, size, "grid dimension %s = %d is too small (at least %d)", names[a],
                     dims[a], DG_MIN_GRID_SIZE);
            return DG_ERR_INVALID_GRID;
        }
        if (dims[a] % 2 == 0) {
            snprintf(message, size, "grid dimension %s = %d is even (must be odd, as in DelPhi)",
                     names[a], dims[a]);
            return DG_ERR_INVALID_GRID;
        }
    }
    double points = (double)nx * ny * nz;
    if (points > (double)INT_MAX) {
        snprintf(message, size,
                 "grid %d x %d x %d has %.0f points; at most %d are supported (32-bit indices)", nx,
                 ny, nz, points, INT_MAX);
        return DG_ERR_INVALID_GRID;
    }
    prep->nx = nx, prep->ny = ny, prep->nz = nz;
    prep->point_count = (size_t)nx * ny * nz;
    prep->half_count[0] = (prep->point_count + 1) / 2;
    prep->half_count[1] = (prep->point_count - 1) / 2;
    prep->interior_count = (size_t)(nx - 2) * (ny - 2) * (nz - 2);
    prep->factor[0] = 1.0 / 6.0;
    prep->factor[1] = 1.0 / 6.0;
    return DG_OK;
}

int dg_prepared_alloc_flags(dg_prepared *prep) {
    for (int c = 0; c < 2; ++c) {
        prep->flag[c] = calloc(prep->half_count[c] + 1, 1);
        if (!prep->flag[c]) return DG_ERR_OUT_OF_MEMORY;
    }
    return DG_OK;
}

int dg_prepared_alloc_lists(dg_prepared *prep, const int boundary_count[2],
                            const int charge_count[2]) {
    for (int c = 0; c < 2; ++c) {
        prep->boundary_count[c] = boundary_count[c];
        prep->charge_count[c] = charge_count[c];
        /* +1 so that empty lists still get a valid pointer */
        prep->boundary_index[c] = malloc(((size_t)boundary_count[c] + 1) * sizeof(int));
        prep->boundary_weight[c] = malloc(((size_t)boundary_count[c] + 1) * 6 * sizeof(double));
        prep->charge_index[c] = malloc(((size_t)charge_count[c] + 1) * sizeof(int));
        prep->charge_source[c] = malloc(((size_t)charge_count[c] + 1) * sizeof(double));
        if (!prep->boundary_index[c] || !prep->boundary_weight[c] || !prep->charge_index[c] ||
            !prep->charge_source[c])
            return DG_ERR_OUT_OF_MEMORY;
    }
    return DG_OK;
}
