/* Template body of medium_dense.c, included once per element type (REAL, SFX). */

/* Relative permittivity of face f (x-,x+,y-,y+,z-,z+) of full-grid point w. */
static inline double SFX(face_eps)(const SFX(dg_dense_medium) * m, long w, int f) {
    const long stride[3] = {1, m->nx, (long)m->nx * m->ny};
    const long at = (f & 1) ? w : w - stride[f / 2];
    if (m->eps_x) {
        const REAL *map[3] = {m->eps_x, m->eps_y, m->eps_z};
        return (double)map[f / 2][at];
    }
    const unsigned char *media[3] = {m->medium_x, m->medium_y, m->medium_z};
    return m->medium_epsilon[media[f / 2][at]];
}

/* Check the permittivity inputs; every face of every interior point must be finite and > 0. */
static int SFX(check_permittivity)(const SFX(dg_dense_medium) * m, const dg_prepared *p, char *msg,
                                   size_t size) {
    if (m->eps_x || m->eps_y || m->eps_z) {
        if (!m->eps_x || !m->eps_y || !m->eps_z) {
            snprintf(msg, size, "eps_x, eps_y and eps_z must all be given (or all NULL)");
            return DG_ERR_INVALID_ARGUMENT;
        }
    } else {
        if (!m->medium_x || !m->medium_y || !m->medium_z || !m->medium_epsilon ||
            m->medium_count < 1 || m->medium_count > 256) {
            snprintf(msg, size,
                     "no permittivity: give eps_x/eps_y/eps_z, or medium_x/medium_y/medium_z "
                     "with medium_epsilon[medium_count] (1..256 media)");
            return DG_ERR_INVALID_ARGUMENT;
        }
        for (int i = 0; i < m->medium_count; ++i)
            if (!isfinite(m->medium_epsilon[i]) || m->medium_epsilon[i] <= 0.0) {
                snprintf(msg, size, "medium_epsilon[%d] = %g (must be finite and > 0)", i,
                         m->medium_epsilon[i]);
                return isfinite(m->medium_epsilon[i]) ? DG_ERR_BAD_PERMITTIVITY
                                                      : DG_ERR_NONFINITE_INPUT;
            }
    }
    if (!m->eps_x && media_in_range(m->medium_x, m->medium_y, m->medium_z, m->medium_count, p))
        return DG_OK;
    const char *names[3] = {"x", "y", "z"};
    int status = DG_OK;
#pragma omp parallel for schedule(static)
    for (int z = 1; z < p->nz - 1; ++z) {
        for (int y = 1; y < p->ny - 1; ++y)
            for (int x = 1; x < p->nx - 1; ++x) {
                long w = x + (long)p->nx * (y + (long)p->ny * z);
                for (int f = 0; f < 6; ++f) {
                    if (!m->eps_x) {
                        const unsigned char *media[3] = {m->medium_x, m->medium_y, m->medium_z};
                        long at = (f & 1) ? w
                                          : w - (f < 2   ? 1
                                                 : f < 4 ? p->nx
                                                         : (long)p->nx * p->ny);
                        if (media[f / 2][at] >= m->medium_count) {
#pragma omp critical(dg_dense_error)
                            if (status == DG_OK) {
                                snprintf(msg, size,
                                         "medium_%s at point (%d,%d,%d) face %d: medium number %d "
                                         ">= medium_count %d",
                                         names[f / 2], x, y, z, f, media[f / 2][at],
                                         m->medium_count);
                                status = DG_ERR_INDEX_OUT_OF_RANGE;
                            }
                            break;
                        }
                        continue;
                    }
                    double e = SFX(face_eps)(m, w, f);
                    if (!isfinite(e) || e <= 0.0) {
#pragma omp critical(dg_dense_error)
                        if (status == DG_OK) {
                            snprintf(msg, size,
                                     "eps_%s at the face %s of point (%d,%d,%d) is %g (must be "
                                     "finite and > 0)",
                                     names[f / 2], (f & 1) ? "+" : "-", x, y, z, e);
                            status = isfinite(e) ? DG_ERR_BAD_PERMITTIVITY : DG_ERR_NONFINITE_INPUT;
                        }
                        break;
                    }
                }
            }
    }
    return status;
}

/* Merge the fixed charges into a sorted list of distinct non-zero grid points. */
static int SFX(collect_charges)(const SFX(dg_dense_medium) * m, const dg_prepared *p,
                                dg_grid_charge **out, long *count, char *msg, size_t size) {
    *out = NULL, *count = 0;
    long n = 0;
    dg_grid_charge *list = NULL;
    if (m->charge) {
        /* Per-thread ranges of the grid: counts, prefix sums, then each fills its slots (the
           list in grid order, as a serial pass makes it). */
        const long points = (long)p->point_count;
        long first[DG_DENSE_MAX_PARTS + 1] = {0};
        int team = 1;
#pragma omp parallel num_threads(dense_parts(points))
        {
            const int t = omp_get_thread_num(), parts = omp_get_num_threads();
            const long begin = points * t / parts, end = points * (t + 1) / parts;
            long here = 0;
            for (long w = begin; w < end; ++w)
                here += m->charge[w] != 0;
            first[t + 1] = here;
#pragma omp barrier
#pragma omp single
            {
                team = parts;
                for (int i = 0; i < parts; ++i)
                    first[i + 1] += first[i];
                list = malloc((size_t)(first[parts] + 1) * sizeof *list);
            }
            long slot = first[t];
            for (long w = begin; w < end && list; ++w)
                if (m->charge[w] != 0)
                    list[slot].index = w, list[slot++].charge = (double)m->charge[w];
        }
        if (!list) return DG_ERR_OUT_OF_MEMORY;
        n = first[team];
    } else if (m->charge_list_count > 0) {
        if (!m->charge_list_index || !m->charge_list_value) {
            snprintf(msg, size, "charge_list_index or charge_list_value is NULL with %ld entries",
                     m->charge_list_count);
            return DG_ERR_INVALID_ARGUMENT;
        }
        list = malloc((size_t)m->charge_list_count * sizeof *list);
        if (!list) return DG_ERR_OUT_OF_MEMORY;
        for (long i = 0; i < m->charge_list_count; ++i) {
            long w = m->charge_list_index[i];
            if (w < 0 || w >= (long)p->point_count) {
                snprintf(msg, size, "charge_list_index[%ld] = %ld is outside 0..%ld", i, w,
                         (long)p->point_count - 1);
                free(list);
                return DG_ERR_INDEX_OUT_OF_RANGE;
            }
            list[i].index = w, list[i].charge = (double)m->charge_list_value[i];
        }
        if (dg_sort_grid_charges(list, m->charge_list_count, (long)p->point_count) != 0) {
            free(list);
            return DG_ERR_OUT_OF_MEMORY;
        }
        for (long i = 0; i < m->charge_list_count; ++i) /* merge repeats */
            if (n > 0 && list[n - 1].index == list[i].index)
                list[n - 1].charge += list[i].charge;
            else
                list[n++] = list[i];
    }
    const long bad = first_bad_charge(list, n, p);
    if (bad < n) {
        int x, y, z;
        dg_coords_of(p, list[bad].index, &x, &y, &z);
        if (!isfinite(list[bad].charge))
            snprintf(msg, size, "charge at point (%d,%d,%d) is %g", x, y, z, list[bad].charge);
        else
            snprintf(msg, size,
                     "charge %g e at the face point (%d,%d,%d): faces hold boundary values; "
                     "enlarge the grid",
                     list[bad].charge, x, y, z);
        const int st =
            isfinite(list[bad].charge) ? DG_ERR_INDEX_OUT_OF_RANGE : DG_ERR_NONFINITE_INPUT;
        free(list);
        return st;
    }
    long kept = 0; /* the non-zero charges, in order */
    for (long i = 0; i < n; ++i)
        if (list[i].charge != 0.0) list[kept++] = list[i];
    *out = list, *count = kept;
    return DG_OK;
}

/* The row flags (ROW_BOUNDARY, ROW_SALT) of the interior row whose point x = 0 is w = row: from
   the medium-number maps through media, else from the permittivity maps point by point. */
static void SFX(row_flags)(const SFX(dg_dense_medium) * m, const media_rows *media, int with_salt,
                           long row, unsigned char *flags) {
    if (media) {
        media_row_flags(media, row, flags);
        return;
    }
    for (long x = 1; x < m->nx - 1; ++x) {
        const long w = row + x;
        double e[6];
        for (int f = 0; f < 6; ++f)
            e[f] = SFX(face_eps)(m, w, f);
        const int jump =
            e[0] != e[1] || e[0] != e[2] || e[0] != e[3] || e[0] != e[4] || e[0] != e[5];
        const int mobile = with_salt && m->ion_accessible[w];
        const int off_solvent = fabs(e[0] - m->epsilon_solvent) > 1e-6 * m->epsilon_solvent;
        flags[x] = (unsigned char)((jump || (mobile && off_solvent) ? ROW_BOUNDARY : 0) |
                                   (mobile ? ROW_SALT : 0));
    }
}

/* Derive the prepared problem from a dense medium. */
static int SFX(derive_prepared)(const SFX(dg_dense_medium) * m, dg_prepared *p, char *msg,
                                size_t size) {
    int st = dg_prepared_init_grid(p, m->nx, m->ny, m->nz, msg, size);
    if (st != DG_OK) return st;
    double temp = m->temperature == 0.0 ? DG_DEFAULT_TEMP : m->temperature;
    if (!isfinite(m->scale) || m->scale <= 0.0 || !isfinite(temp) || temp <= 0.0) {
        snprintf(msg, size, "scale = %g grid/A and temperature = %g K must be finite and > 0",
                 m->scale, temp);
        return isfinite(m->scale) && isfinite(temp) ? DG_ERR_INVALID_ARGUMENT
                                                    : DG_ERR_NONFINITE_INPUT;
    }
    if ((st = SFX(check_permittivity)(m, p, msg, size)) != DG_OK) return st;
    salt_terms salt;
    if (m->salt_count < 0 || (m->salt_count > 0 && !m->salts)) {
        snprintf(msg, size, "salt_count = %d with salts %s", m->salt_count,
                 m->salts ? "given" : "NULL");
        return DG_ERR_INVALID_ARGUMENT;
    }
    st = compute_salt_terms(m->salts, m->salt_count, m->epsilon_solvent, temp, m->scale, &salt, msg,
                            size);
    if (st != DG_OK) return st;
    const int with_salt = salt.present && m->ion_accessible;
    const double epkt = DG_EPKT_NUMERATOR / temp;

    /* Pass 1: count boundary points per colour and plane; pass 2 fills in w order.  Both take
       each interior row's flags (ROW_BOUNDARY, ROW_SALT) into a row buffer of their thread. */
    const int nz = p->nz, parts = omp_get_max_threads();
    const long nx = p->nx, plane = nx * p->ny;
    long *plane_count = calloc((size_t)2 * nz + 2, sizeof(long));
    unsigned char *row_buffers = malloc((size_t)parts * (size_t)(nx + 8));
    if (!plane_count || !row_buffers) {
        free(plane_count), free(row_buffers);
        snprintf(msg, size, "out of memory deriving the medium");
        return DG_ERR_OUT_OF_MEMORY;
    }
    media_rows media;
    if (!m->eps_x) {
        const unsigned char *face[3] = {m->medium_x, m->medium_y, m->medium_z};
        media_rows_init(&media, face, with_salt ? m->ion_accessible : NULL, m->medium_epsilon,
                        m->medium_count, m->epsilon_solvent, nx, plane);
    }
#pragma omp parallel num_threads(parts)
    {
        unsigned char *flags = row_buffers + (size_t)omp_get_thread_num() * (size_t)(nx + 8);
#pragma omp for schedule(static)
        for (int z = 1; z < nz - 1; ++z)
            for (int y = 1; y < p->ny - 1; ++y) {
                const long row = nx * y + plane * z;
                SFX(row_flags)(m, m->eps_x ? NULL : &media, with_salt, row, flags);
                long count[2] = {0, 0};
                for (long x = 1; x < nx - 1; ++x)
                    count[(row + x) & 1] += flags[x] & ROW_BOUNDARY;
                plane_count[2 * z] += count[0], plane_count[2 * z + 1] += count[1];
            }
    }
    int bcount[2] = {0, 0};
    for (int z = 0; z < nz; ++z)
        for (int c = 0; c < 2; ++c) {
            long here = plane_count[2 * z + c];
            plane_count[2 * z + c] = bcount[c]; /* becomes the plane's first slot */
            bcount[c] += (int)here;
        }
    dg_grid_charge *charges = NULL;
    long charge_total = 0;
    st = SFX(collect_charges)(m, p, &charges, &charge_total, msg, size);
    if (st == DG_OK && charge_total > 0x7fffffff) st = DG_ERR_UNSUPPORTED;
    int ccount[2] = {0, 0};
    for (long i = 0; i < charge_total && st == DG_OK; ++i)
        ccount[charges[i].index & 1]++;
    if (st == DG_OK) st = dg_prepared_alloc_lists(p, bcount, ccount);
    if (st == DG_OK && with_salt) st = dg_prepared_alloc_flags(p);
    if (st != DG_OK) {
        if (st == DG_ERR_OUT_OF_MEMORY) snprintf(msg, size, "out of memory deriving the medium");
        free(plane_count), free(row_buffers), free(charges);
        return st;
    }
    p->has_salt = with_salt;
    p->factor[0] = 1.0 / 6.0;
    p->factor[1] = with_salt ? salt.salt_factor : 1.0 / 6.0;
#pragma omp parallel num_threads(parts)
    {
        unsigned char *flags = row_buffers + (size_t)omp_get_thread_num() * (size_t)(nx + 8);
#pragma omp for schedule(static)
        for (int z = 1; z < nz - 1; ++z) {
            long next[2] = {plane_count[2 * z], plane_count[2 * z + 1]};
            for (int y = 1; y < p->ny - 1; ++y) {
                const long row = nx * y + plane * z;
                SFX(row_flags)(m, m->eps_x ? NULL : &media, with_salt, row, flags);
                for (long x = 1; x < nx - 1; ++x) {
                    if (!flags[x]) continue;
                    const long w = row + x;
                    const int c = (int)(w & 1);
                    if (flags[x] & ROW_BOUNDARY) {
                        double e[6];
                        for (int f = 0; f < 6; ++f)
                            e[f] = SFX(face_eps)(m, w, f);
                        double d = (e[0] + e[1] + e[2] + e[3] + e[4] + e[5]) / epkt;
                        if (flags[x] & ROW_SALT) d += salt.debfct;
                        long k = next[c]++;
                        p->boundary_index[c][k] = (int)(w / 2);
                        for (int f = 0; f < 6; ++f)
                            p->boundary_weight[c][6 * k + f] = e[f] / epkt / d - 1.0 / 6.0;
                    } else {
                        p->flag[c][w / 2] = 1; /* a salt point off the boundary */
                    }
                }
            }
        }
    }
    free(plane_count), free(row_buffers);
    /* Charges: source = 4 pi scale q / D, D = sum of face eps' (+ debfct with salt).  Each
       thread takes a contiguous part of the list; the counts of its colours give its first
       slot in each colour's list (the serial order). */
    long first[2][DG_DENSE_MAX_PARTS + 1];
    int not_interior = 0;
#pragma omp parallel num_threads(dense_parts(charge_total)) reduction(+ : not_interior)
    {
        const int t = omp_get_thread_num(), team = omp_get_num_threads();
        const long begin = charge_total * t / team, end = charge_total * (t + 1) / team;
        long colour0 = 0;
        for (long i = begin; i < end; ++i)
            colour0 += !(charges[i].index & 1);
        first[0][t + 1] = colour0, first[1][t + 1] = end - begin - colour0;
#pragma omp barrier
#pragma omp single
        {
            first[0][0] = first[1][0] = 0;
            for (int u = 0; u < team; ++u)
                for (int c = 0; c < 2; ++c)
                    first[c][u + 1] += first[c][u];
        }
        long next[2] = {first[0][t], first[1][t]};
        for (long i = begin; i < end; ++i) {
            const long w = charges[i].index;
            const int c = (int)(w & 1);
            double d = 0.0;
            for (int f = 0; f < 6; ++f)
                d += SFX(face_eps)(m, w, f) / epkt;
            const int salt_here = with_salt && m->ion_accessible[w];
            if (salt_here) d += salt.debfct;
            const long k = next[c]++;
            p->charge_index[c][k] = (int)(w / 2);
            p->charge_source[c][k] = DG_FOUR_PI * m->scale * charges[i].charge / d;
            /* DelPhi's count (cgbp): a charged point whose six faces differ, or with a face in
               the solvent (epsilon_solvent; when that is not given, a point with salt). */
            int boundary_here = 0, solvent_face = 0;
            for (int f = 1; f < 6; ++f)
                boundary_here |= SFX(face_eps)(m, w, f) != SFX(face_eps)(m, w, 0);
            for (int f = 0; f < 6 && m->epsilon_solvent > 0.0; ++f) /* as the salt rule, 1e-6 */
                solvent_face |=
                    fabs(SFX(face_eps)(m, w, f) - m->epsilon_solvent) <= 1e-6 * m->epsilon_solvent;
            not_interior += boundary_here || (m->epsilon_solvent > 0.0 ? solvent_face : salt_here);
        }
    }
    p->charges_not_interior += not_interior;
    double net = 0.0; /* in list order */
    for (long i = 0; i < charge_total; ++i)
        net += charges[i].charge;
    free(charges);
    p->net_charge_known = 1;
    p->net_charge = net;
    p->nonlinear_ready = with_salt;
    p->nonlinear_coefficient = salt.nonlinear_coefficient;
    for (int i = 0; i < 4; ++i)
        p->chi[i] = salt.chi[i];
    return DG_OK;
}

static int SFX(set_dense_medium_impl)(dg_solver s, const SFX(dg_dense_medium) * m) {
    if (!s) return DG_ERR_INVALID_ARGUMENT;
    if (dg_reject_reentry(s, "dg_set_dense_medium") != DG_OK) return DG_ERR_STATE;
    dg_clear_error(s);
    if (!s->backend) return dg_fail(s, DG_ERR_STATE, "the solver was not created successfully");
    if (!m) return dg_fail(s, DG_ERR_INVALID_ARGUMENT, "medium is NULL");
    dg_prepared prep;
    const double start = dg_wall_seconds();
    int st = SFX(derive_prepared)(m, &prep, s->error.message, sizeof s->error.message);
    s->timing.prepare = dg_wall_seconds() - start;
    if (st != DG_OK) {
        dg_prepared_free(&prep);
        return s->error.status = st;
    }
    return dg_install_medium(s, &prep);
}

static int SFX(sparse_counts_impl)(const SFX(dg_dense_medium) * m, dg_sparse_counts *counts,
                                   char *msg, size_t size) {
    char local[256];
    if (!msg || !size) msg = local, size = sizeof local;
    if (!m || !counts) {
        snprintf(msg, size, "medium or counts is NULL");
        return DG_ERR_INVALID_ARGUMENT;
    }
    dg_prepared p;
    int st = SFX(derive_prepared)(m, &p, msg, size);
    if (st == DG_OK) {
        counts->boundary_count_odd = p.boundary_count[0];
        counts->boundary_count = p.boundary_count[0] + p.boundary_count[1];
        counts->charge_count_odd = p.charge_count[0];
        counts->charge_count = p.charge_count[0] + p.charge_count[1];
        counts->charges_not_interior = p.charges_not_interior;
    }
    dg_prepared_free(&p);
    return st;
}

static int SFX(sparse_from_dense_impl)(const SFX(dg_dense_medium) * m, int *boundary_index,
                                       REAL *boundary_weights, int *charge_index,
                                       REAL *charge_source, REAL *salt_factor_odd,
                                       REAL *salt_factor_even, SFX(dg_sparse_medium) * out,
                                       char *msg, size_t size) {
    char local[256];
    if (!msg || !size) msg = local, size = sizeof local;
    if (!m || !out) {
        snprintf(msg, size, "medium or out is NULL");
        return DG_ERR_INVALID_ARGUMENT;
    }
    dg_prepared p;
    int st = SFX(derive_prepared)(m, &p, msg, size);
    const int nb = p.boundary_count[0] + p.boundary_count[1];
    const int nq = p.charge_count[0] + p.charge_count[1];
    if (st == DG_OK && ((nb > 0 && (!boundary_index || !boundary_weights)) ||
                        (nq > 0 && (!charge_index || !charge_source)) ||
                        (p.has_salt && (!salt_factor_odd || !salt_factor_even)))) {
        snprintf(msg, size, "an output array is NULL (%d boundary points, %d charged points%s)", nb,
                 nq, p.has_salt ? ", salt" : "");
        st = DG_ERR_INVALID_ARGUMENT;
    }
    if (st != DG_OK) {
        dg_prepared_free(&p);
        return st;
    }
    memset(out, 0, sizeof *out);
    out->nx = p.nx, out->ny = p.ny, out->nz = p.nz;
    out->index_kind = DG_INDEX_DELPHI_HALF;
    out->boundary_count_odd = p.boundary_count[0], out->boundary_count = nb;
    out->charge_count_odd = p.charge_count[0], out->charge_count = nq;
    /* DelPhi's db: eps_f/D - 1/6 without salt; eps_f/D with salt (sf = 0 there). */
    const double db_shift = p.has_salt ? p.factor[0] : 0.0;
    for (int c = 0, entry = 0; c < 2; ++c)
        for (int k = 0; k < p.boundary_count[c]; ++k, ++entry) {
            boundary_index[entry] = p.boundary_index[c][k] + 1;
            for (int f = 0; f < 6; ++f)
                boundary_weights[6 * entry + f] =
                    (REAL)(p.boundary_weight[c][6 * k + f] + db_shift);
        }
    for (int c = 0, entry = 0; c < 2; ++c)
        for (int k = 0; k < p.charge_count[c]; ++k, ++entry) {
            charge_index[entry] = p.charge_index[c][k] + 1;
            charge_source[entry] = (REAL)p.charge_source[c][k];
        }
    out->boundary_index = boundary_index, out->boundary_weights = boundary_weights;
    out->charge_index = charge_index, out->charge_source = charge_source;
    out->salt_model = DG_SALT_NONE;
    if (p.has_salt) {
        REAL *sf[2] = {salt_factor_odd, salt_factor_even};
        for (int c = 0; c < 2; ++c) {
            for (size_t h = 0; h < p.half_count[c]; ++h)
                sf[c][h] = (REAL)p.factor[p.flag[c][h] ? 1 : 0];
            for (int k = 0; k < p.boundary_count[c]; ++k)
                sf[c][p.boundary_index[c][k]] = 0;
        }
        out->salt_model = DG_SALT_PER_POINT;
        out->salt_factor_odd = salt_factor_odd, out->salt_factor_even = salt_factor_even;
        out->salt_factor = p.factor[1];
        out->nonlinear_coefficient = p.nonlinear_coefficient;
        for (int i = 0; i < 4; ++i)
            out->chi[i] = p.chi[i];
    }
    dg_prepared_free(&p);
    return DG_OK;
}
