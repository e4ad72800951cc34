/* Template body of medium_sparse.c, included once per element type.
 * Expects REAL (float or double) and SFX(name) (name##_f or name##_d). */

/* Copy the boundary and charge lists into prep (raw db kept for now), checking indices,
   duplicates and finiteness.  boundary_marks[c][h] = 1 at boundary points. */
static int SFX(load_lists)(dg_prepared *p, const SFX(dg_sparse_medium) * m, marks *boundary_marks,
                           char *msg, size_t size) {
    const int bcount[2] = {m->boundary_count_odd, m->boundary_count - m->boundary_count_odd};
    const int ccount[2] = {m->charge_count_odd, m->charge_count - m->charge_count_odd};
    if (dg_prepared_alloc_lists(p, bcount, ccount) != DG_OK) {
        snprintf(msg, size, "out of memory for %d boundary and %d charged points",
                 m->boundary_count, m->charge_count);
        return DG_ERR_OUT_OF_MEMORY;
    }
    for (int c = 0; c < 2; ++c) {
        for (int k = 0; k < bcount[c]; ++k) {
            long entry = c == 0 ? k : (long)bcount[0] + k, h = 0;
            int st = dg_decode_sparse_index(p, m->index_kind, c, "boundary_index", entry,
                                            m->boundary_index[entry], &h, msg, size);
            if (st != DG_OK) return st;
            if (boundary_marks->m[c][h]) {
                snprintf(msg, size, "boundary_index[%ld]: point %d is listed twice", entry,
                         m->boundary_index[entry]);
                return DG_ERR_COUNT_MISMATCH;
            }
            boundary_marks->m[c][h] = 1;
            p->boundary_index[c][k] = (int)h;
            for (int f = 0; f < 6; ++f) {
                double wgt = (double)m->boundary_weights[6 * entry + f];
                if (!isfinite(wgt)) {
                    snprintf(msg, size, "boundary_weights[%ld] (point %ld, face %d) is %g",
                             6 * entry + f, entry, f, wgt);
                    return DG_ERR_NONFINITE_INPUT;
                }
                p->boundary_weight[c][6 * k + f] = wgt;
            }
        }
    }
    marks charge_marks = {{NULL, NULL}};
    if (marks_alloc(&charge_marks, p) != DG_OK) {
        marks_free(&charge_marks);
        snprintf(msg, size, "out of memory");
        return DG_ERR_OUT_OF_MEMORY;
    }
    int st = DG_OK;
    for (int c = 0; c < 2 && st == DG_OK; ++c) {
        for (int k = 0; k < ccount[c]; ++k) {
            long entry = c == 0 ? k : (long)ccount[0] + k, h = 0;
            st = dg_decode_sparse_index(p, m->index_kind, c, "charge_index", entry,
                                        m->charge_index[entry], &h, msg, size);
            if (st != DG_OK) break;
            if (charge_marks.m[c][h]) {
                snprintf(msg, size, "charge_index[%ld]: point %d is listed twice", entry,
                         m->charge_index[entry]);
                st = DG_ERR_COUNT_MISMATCH;
                break;
            }
            charge_marks.m[c][h] = 1;
            double q = (double)m->charge_source[entry];
            if (!isfinite(q)) {
                snprintf(msg, size, "charge_source[%ld] is %g", entry, q);
                st = DG_ERR_NONFINITE_INPUT;
                break;
            }
            p->charge_index[c][k] = (int)h;
            p->charge_source[c][k] = q;
        }
    }
    marks_free(&charge_marks);
    return st;
}

/* DelPhi's sf arrays: find the no-salt and salt factors at non-boundary interior points and set
   the flags.  At most two distinct values are supported (DelPhi produces 1/6 and one salt
   factor). */
static int SFX(classify_salt_factors)(dg_prepared *p, const SFX(dg_sparse_medium) * m,
                                      const marks *boundary_marks, char *msg, size_t size) {
    const REAL *sf[2] = {m->salt_factor_odd, m->salt_factor_even};
    double distinct[2] = {0.0, 0.0};
    int ndistinct = 0;
    for (int c = 0; c < 2; ++c)
        for (int z = 1; z < p->nz - 1; ++z)
            for (int y = 1; y < p->ny - 1; ++y) {
                long first, last;
                dg_row_range(p->nx, p->ny, y, z, c, &first, &last);
                for (long h = first; h <= last; ++h) {
                    if (boundary_marks->m[c][h]) continue;
                    double v = (double)sf[c][h];
                    if (!isfinite(v) || v <= 0.0) {
                        snprintf(msg, size,
                                 "salt_factor_%s[%ld] (DelPhi index %ld) is %g at a point that "
                                 "is not a dielectric-boundary point (must be > 0)",
                                 c == 0 ? "odd" : "even", h, h + 1, v);
                        return isfinite(v) ? DG_ERR_BAD_PERMITTIVITY : DG_ERR_NONFINITE_INPUT;
                    }
                    if ((ndistinct > 0 && v == distinct[0]) || (ndistinct > 1 && v == distinct[1]))
                        continue;
                    if (ndistinct == 2) {
                        snprintf(msg, size,
                                 "salt factors take more than two values at non-boundary points "
                                 "(%g, %g, %g); only DelPhi's two (1/6 and one salt factor) are "
                                 "supported",
                                 distinct[0], distinct[1], v);
                        return DG_ERR_UNSUPPORTED;
                    }
                    distinct[ndistinct++] = v;
                }
            }
    int st = pick_salt_factors(p, distinct, ndistinct, 1, msg, size);
    if (st != DG_OK || !p->has_salt) return st;
    const double f1 = p->factor[1];
    for (int c = 0; c < 2; ++c)
        for (int z = 1; z < p->nz - 1; ++z)
            for (int y = 1; y < p->ny - 1; ++y) {
                long first, last;
                dg_row_range(p->nx, p->ny, y, z, c, &first, &last);
                for (long h = first; h <= last; ++h)
                    p->flag[c][h] = !boundary_marks->m[c][h] && (double)sf[c][h] == f1;
            }
    return DG_OK;
}

/* Solvent flags (idebmap) and one salt factor. */
static int SFX(set_solvent_flags)(dg_prepared *p, const SFX(dg_sparse_medium) * m,
                                  const marks *boundary_marks, char *msg, size_t size) {
    if (!isfinite(m->salt_factor) || m->salt_factor <= 0.0) {
        snprintf(msg, size, "salt_factor is %g (must be finite and > 0)", m->salt_factor);
        return isfinite(m->salt_factor) ? DG_ERR_BAD_PERMITTIVITY : DG_ERR_NONFINITE_INPUT;
    }
    if (dg_prepared_alloc_flags(p) != DG_OK) {
        snprintf(msg, size, "out of memory for the salt flags");
        return DG_ERR_OUT_OF_MEMORY;
    }
    p->factor[0] = 1.0 / 6.0;
    p->factor[1] = m->salt_factor;
    p->has_salt = 1;
    for (int c = 0; c < 2; ++c)
        for (int z = 1; z < p->nz - 1; ++z)
            for (int y = 1; y < p->ny - 1; ++y) {
                long first, last;
                dg_row_range(p->nx, p->ny, y, z, c, &first, &last);
                for (long h = first; h <= last; ++h)
                    p->flag[c][h] = !boundary_marks->m[c][h] && m->solvent_flag[2 * h + c] != 0;
            }
    return DG_OK;
}

/* Turn DelPhi's db into corrections relative to the uniform flag-0 stencil and check that the
   implied permittivity weights are positive. */
static int SFX(convert_boundary_weights)(dg_prepared *p, const SFX(dg_sparse_medium) * m, char *msg,
                                         size_t size) {
    const REAL *sf[2] = {m->salt_factor_odd, m->salt_factor_even};
    for (int c = 0; c < 2; ++c)
        for (int k = 0; k < p->boundary_count[c]; ++k) {
            int h = p->boundary_index[c][k];
            double delphi_factor = 1.0 / 6.0; /* DelPhi's uniform factor at this point */
            if (m->salt_model == DG_SALT_PER_POINT) delphi_factor = (double)sf[c][h];
            if (m->salt_model == DG_SALT_FLAG) delphi_factor = 0.0;
            for (int f = 0; f < 6; ++f) {
                double *wgt = &p->boundary_weight[c][6 * k + f];
                if (*wgt + delphi_factor <= 0.0) {
                    long entry = c == 0 ? k : (long)p->boundary_count[0] + k;
                    snprintf(msg, size,
                             "boundary point %ld (index %d), face %d: weight %g implies a zero or "
                             "negative permittivity",
                             entry, m->boundary_index[entry], f, *wgt);
                    return DG_ERR_BAD_PERMITTIVITY;
                }
                if (m->salt_model != DG_SALT_NONE) *wgt += delphi_factor - p->factor[0];
            }
        }
    return DG_OK;
}

static int SFX(check_sparse_header)(const SFX(dg_sparse_medium) * m, char *msg, size_t size) {
    if (m->index_kind != DG_INDEX_DELPHI_HALF && m->index_kind != DG_INDEX_FULL) {
        snprintf(msg, size, "index_kind %d is neither DG_INDEX_DELPHI_HALF nor DG_INDEX_FULL",
                 m->index_kind);
        return DG_ERR_INVALID_ARGUMENT;
    }
    if (m->boundary_count < 0 || m->boundary_count_odd < 0 ||
        m->boundary_count_odd > m->boundary_count) {
        snprintf(msg, size,
                 "boundary counts disagree: boundary_count_odd = %d, boundary_count = %d "
                 "(need 0 <= odd <= total)",
                 m->boundary_count_odd, m->boundary_count);
        return DG_ERR_COUNT_MISMATCH;
    }
    if (m->charge_count < 0 || m->charge_count_odd < 0 || m->charge_count_odd > m->charge_count) {
        snprintf(msg, size,
                 "charge counts disagree: charge_count_odd = %d, charge_count = %d "
                 "(need 0 <= odd <= total)",
                 m->charge_count_odd, m->charge_count);
        return DG_ERR_COUNT_MISMATCH;
    }
    if (m->boundary_count > 0 && (!m->boundary_index || !m->boundary_weights)) {
        snprintf(msg, size, "boundary_index or boundary_weights is NULL with %d boundary points",
                 m->boundary_count);
        return DG_ERR_INVALID_ARGUMENT;
    }
    if (m->charge_count > 0 && (!m->charge_index || !m->charge_source)) {
        snprintf(msg, size, "charge_index or charge_source is NULL with %d charged points",
                 m->charge_count);
        return DG_ERR_INVALID_ARGUMENT;
    }
    if (m->salt_model == DG_SALT_PER_POINT && (!m->salt_factor_odd || !m->salt_factor_even)) {
        snprintf(msg, size, "salt model PER_POINT needs salt_factor_odd and salt_factor_even");
        return DG_ERR_INVALID_ARGUMENT;
    }
    if (m->salt_model == DG_SALT_FLAG && !m->solvent_flag) {
        snprintf(msg, size, "salt model FLAG needs solvent_flag");
        return DG_ERR_INVALID_ARGUMENT;
    }
    if (m->salt_model < DG_SALT_NONE || m->salt_model > DG_SALT_FLAG) {
        snprintf(msg, size, "salt_model %d is not NONE, PER_POINT or FLAG", m->salt_model);
        return DG_ERR_INVALID_ARGUMENT;
    }
    if (!isfinite(m->nonlinear_coefficient) || !isfinite(m->chi[0]) || !isfinite(m->chi[1]) ||
        !isfinite(m->chi[2]) || !isfinite(m->chi[3])) {
        snprintf(msg, size, "nonlinear_coefficient or chi[] is NaN or Inf");
        return DG_ERR_NONFINITE_INPUT;
    }
    return DG_OK;
}

/* The whole medium on the serial path (each problem named in msg). */
static int SFX(prepare_serial)(dg_prepared *p, const SFX(dg_sparse_medium) * m,
                               marks *boundary_marks, char *msg, size_t size) {
    int st = SFX(load_lists)(p, m, boundary_marks, msg, size);
    if (st == DG_OK && m->salt_model == DG_SALT_PER_POINT)
        st = SFX(classify_salt_factors)(p, m, boundary_marks, msg, size);
    if (st == DG_OK && m->salt_model == DG_SALT_FLAG)
        st = SFX(set_solvent_flags)(p, m, boundary_marks, msg, size);
    if (st == DG_OK) st = SFX(convert_boundary_weights)(p, m, msg, size);
    return st;
}

/* ---- The parallel path ---------------------------------------------------------------------
   The same prepared medium as the serial functions above, on all threads: each list in one
   parallel pass (duplicates found with an atomic mark), the salt factors in one pass per grid
   plane and colour (the first distinct values of each plane, merged in grid order, are those
   the serial scan meets first), the flags in one more.  It checks everything the serial path
   checks but names nothing: on any problem it returns SPARSE_SERIAL_PATH, and the caller runs
   the serial path from the start on a fresh prep, which names the first problem. */

/* The parallel path's loops run on the host pool (host_pool.h), in ranges of PARALLEL_GRAIN
   entries (PLANE_GRAIN grid planes); a range that meets a problem sets the job's `bad`. */

/* One list (boundary when weights, else charges) decoded, marked and copied. */
typedef struct SFX(list_job) {
    dg_prepared *p;
    const SFX(dg_sparse_medium) * m;
    int is_boundary, odd, bad;
    const int *index;
    marks *seen;
} SFX(list_job);

static void SFX(list_range)(void *context, size_t begin, size_t end) {
    SFX(list_job) *j = context;
    dg_prepared *p = j->p;
    const SFX(dg_sparse_medium) *m = j->m;
    int bad = 0;
    for (long e = (long)begin; e < (long)end; ++e) {
        const int c = e < j->odd ? 0 : 1;
        const long k = c == 0 ? e : e - j->odd;
        long h = 0;
        if (sparse_half_index(p, m->index_kind, c, j->index[e], &h) != INDEX_OK) {
            bad = 1;
            continue;
        }
        const unsigned char was =
            __atomic_exchange_n(&j->seen->m[c][h], (unsigned char)1, __ATOMIC_RELAXED);
        bad |= was != 0;
        if (j->is_boundary) {
            p->boundary_index[c][k] = (int)h;
            for (int f = 0; f < 6; ++f) {
                const double wgt = (double)m->boundary_weights[6 * e + f];
                bad |= !isfinite(wgt);
                p->boundary_weight[c][6 * k + f] = wgt;
            }
        } else {
            const double q = (double)m->charge_source[e];
            bad |= !isfinite(q);
            p->charge_index[c][k] = (int)h;
            p->charge_source[c][k] = q;
        }
    }
    if (bad) __atomic_store_n(&j->bad, 1, __ATOMIC_RELAXED);
}

static int SFX(parallel_list)(dg_prepared *p, const SFX(dg_sparse_medium) * m, int is_boundary,
                              marks *seen, dg_host_loop threads) {
    SFX(list_job)
    j = {p,           m,
         is_boundary, is_boundary ? m->boundary_count_odd : m->charge_count_odd,
         0,           is_boundary ? m->boundary_index : m->charge_index,
         seen};
    const long total = is_boundary ? m->boundary_count : m->charge_count;
    dg_host_for(threads, (size_t)total, PARALLEL_GRAIN, SFX(list_range), &j);
    return j.bad ? SPARSE_SERIAL_PATH : DG_OK;
}

typedef struct SFX(salt_job) {
    dg_prepared *p;
    const REAL *sf[2];
    const marks *boundary_marks;
    double (*values)[2];
    int *found;
    long rows;
    int bad;
} SFX(salt_job);

/* Planes q in [begin, end) of (colour, z) in grid order: their first two distinct factors. */
static void SFX(salt_range)(void *context, size_t begin, size_t end) {
    SFX(salt_job) *j = context;
    const dg_prepared *p = j->p;
    int bad = 0;
    for (long q = (long)begin; q < (long)end && !bad; ++q) {
        const int c = (int)(q / j->rows), z = 1 + (int)(q % j->rows);
        int n = 0;
        for (int y = 1; y < p->ny - 1 && !bad; ++y) {
            long first, last;
            dg_row_range(p->nx, p->ny, y, z, c, &first, &last);
            for (long h = first; h <= last; ++h) {
                if (j->boundary_marks->m[c][h]) continue;
                const double v = (double)j->sf[c][h];
                p->flag[c][h] = !is_no_salt_factor(v);
                if (n > 0 && v == j->values[q][0]) continue;
                if (n > 1 && v == j->values[q][1]) continue;
                if (!isfinite(v) || v <= 0.0 || n == 2) { /* a third value: more than two */
                    bad = 1;
                    break;
                }
                j->values[q][n++] = v;
            }
        }
        j->found[q] = n;
    }
    if (bad) __atomic_store_n(&j->bad, 1, __ATOMIC_RELAXED);
}

/* DelPhi's sf arrays (salt model PER_POINT): the two factors and the flags, in one pass.  A
   non-boundary point is flagged where its factor is not the no-salt one: once the values are
   checked (at most two, at most one of them not within 1e-5 of 1/6) that is exactly where it
   equals the salt factor, as the serial path flags it. */
static int SFX(parallel_salt_factors)(dg_prepared *p, const SFX(dg_sparse_medium) * m,
                                      const marks *boundary_marks, dg_host_loop threads, char *msg,
                                      size_t size) {
    const REAL *sf[2] = {m->salt_factor_odd, m->salt_factor_even};
    const long rows = p->nz - 2, planes = 2 * rows; /* (colour, z) in grid order */
    double(*values)[2] = malloc((size_t)planes * sizeof *values);
    int *found = malloc((size_t)planes * sizeof *found);
    if (!values || !found || dg_prepared_alloc_flags(p) != DG_OK) {
        free(values), free(found);
        return SPARSE_SERIAL_PATH;
    }
    SFX(salt_job) j = {p, {sf[0], sf[1]}, boundary_marks, values, found, rows, 0};
    dg_host_for(threads, (size_t)planes, PLANE_GRAIN, SFX(salt_range), &j);
    int bad = j.bad;
    double distinct[2] = {0.0, 0.0};
    int ndistinct = 0;
    for (long q = 0; q < planes && !bad; ++q)
        for (int i = 0; i < found[q] && !bad; ++i) {
            const double v = values[q][i];
            if ((ndistinct > 0 && v == distinct[0]) || (ndistinct > 1 && v == distinct[1]))
                continue;
            if (ndistinct == 2)
                bad = 1;
            else
                distinct[ndistinct++] = v;
        }
    free(values), free(found);
    if (bad) return SPARSE_SERIAL_PATH;
    int st = pick_salt_factors(p, distinct, ndistinct, 0, msg, size);
    if (st == DG_OK && !p->has_salt) { /* no salt: no flags */
        free(p->flag[0]), free(p->flag[1]);
        p->flag[0] = p->flag[1] = NULL;
    }
    return st;
}

typedef struct SFX(flags_job) {
    dg_prepared *p;
    const SFX(dg_sparse_medium) * m;
    const marks *boundary_marks;
    long rows;
} SFX(flags_job);

static void SFX(flags_range)(void *context, size_t begin, size_t end) {
    const SFX(flags_job) *j = context;
    dg_prepared *p = j->p;
    for (long q = (long)begin; q < (long)end; ++q) {
        const int c = (int)(q / j->rows), z = 1 + (int)(q % j->rows);
        for (int y = 1; y < p->ny - 1; ++y) {
            long first, last;
            dg_row_range(p->nx, p->ny, y, z, c, &first, &last);
            for (long h = first; h <= last; ++h)
                p->flag[c][h] = !j->boundary_marks->m[c][h] && j->m->solvent_flag[2 * h + c] != 0;
        }
    }
}

/* Solvent flags (salt model FLAG): as set_solvent_flags, one pass per plane and colour. */
static int SFX(parallel_solvent_flags)(dg_prepared *p, const SFX(dg_sparse_medium) * m,
                                       const marks *boundary_marks, dg_host_loop threads) {
    if (!isfinite(m->salt_factor) || m->salt_factor <= 0.0) return SPARSE_SERIAL_PATH;
    if (dg_prepared_alloc_flags(p) != DG_OK) return SPARSE_SERIAL_PATH;
    p->factor[0] = 1.0 / 6.0;
    p->factor[1] = m->salt_factor;
    p->has_salt = 1;
    const long rows = p->nz - 2, planes = 2 * rows;
    SFX(flags_job) j = {p, m, boundary_marks, rows};
    dg_host_for(threads, (size_t)planes, PLANE_GRAIN, SFX(flags_range), &j);
    return DG_OK;
}

typedef struct SFX(weights_job) {
    dg_prepared *p;
    const SFX(dg_sparse_medium) * m;
    int colour, bad;
} SFX(weights_job);

static void SFX(weights_range)(void *context, size_t begin, size_t end) {
    SFX(weights_job) *j = context;
    dg_prepared *p = j->p;
    const SFX(dg_sparse_medium) *m = j->m;
    const int c = j->colour;
    const REAL *sf = c == 0 ? m->salt_factor_odd : m->salt_factor_even;
    int bad = 0;
    for (size_t k = begin; k < end; ++k) {
        const int h = p->boundary_index[c][k];
        double delphi_factor = 1.0 / 6.0;
        if (m->salt_model == DG_SALT_PER_POINT) delphi_factor = (double)sf[h];
        if (m->salt_model == DG_SALT_FLAG) delphi_factor = 0.0;
        for (int f = 0; f < 6; ++f) {
            double *wgt = &p->boundary_weight[c][6 * k + f];
            bad |= *wgt + delphi_factor <= 0.0;
            if (m->salt_model != DG_SALT_NONE) *wgt += delphi_factor - p->factor[0];
        }
    }
    if (bad) __atomic_store_n(&j->bad, 1, __ATOMIC_RELAXED);
}

/* The boundary weights as corrections (convert_boundary_weights), in parallel. */
static int SFX(parallel_boundary_weights)(dg_prepared *p, const SFX(dg_sparse_medium) * m,
                                          dg_host_loop threads) {
    SFX(weights_job) j = {p, m, 0, 0};
    for (j.colour = 0; j.colour < 2; ++j.colour)
        dg_host_for(threads, (size_t)p->boundary_count[j.colour], PARALLEL_GRAIN,
                    SFX(weights_range), &j);
    return j.bad ? SPARSE_SERIAL_PATH : DG_OK;
}

/* The whole medium on the parallel path: DG_OK, an error with msg, or SPARSE_SERIAL_PATH. */
static int SFX(prepare_parallel)(dg_solver s, dg_prepared *p, const SFX(dg_sparse_medium) * m,
                                 marks *boundary_marks, dg_host_loop threads, char *msg,
                                 size_t size) {
    const int bcount[2] = {m->boundary_count_odd, m->boundary_count - m->boundary_count_odd};
    const int ccount[2] = {m->charge_count_odd, m->charge_count - m->charge_count_odd};
    if (dg_prepared_alloc_lists(p, bcount, ccount) != DG_OK) return SPARSE_SERIAL_PATH;
    int st = SFX(parallel_list)(p, m, 1, boundary_marks, threads);
    if (st == DG_OK) {
        marks charge_marks = {{NULL, NULL}};
        st = marks_take(s, 1, &charge_marks, p) == DG_OK
                 ? SFX(parallel_list)(p, m, 0, &charge_marks, threads)
                 : SPARSE_SERIAL_PATH;
        marks_give(s, 1, &charge_marks, p, st == DG_OK, p->charge_index, p->charge_count, threads);
    }
    if (st == DG_OK && m->salt_model == DG_SALT_PER_POINT)
        st = SFX(parallel_salt_factors)(p, m, boundary_marks, threads, msg, size);
    if (st == DG_OK && m->salt_model == DG_SALT_FLAG)
        st = SFX(parallel_solvent_flags)(p, m, boundary_marks, threads);
    if (st == DG_OK) st = SFX(parallel_boundary_weights)(p, m, threads);
    return st;
}

static int SFX(set_sparse_medium_impl)(dg_solver s, const SFX(dg_sparse_medium) * m) {
    if (!s) return DG_ERR_INVALID_ARGUMENT;
    if (dg_reject_reentry(s, "dg_set_sparse_medium") != DG_OK) return DG_ERR_STATE;
    dg_clear_error(s);
    if (!s->backend) return dg_fail(s, DG_ERR_STATE, "the solver was not created successfully");
    if (!m) return dg_fail(s, DG_ERR_INVALID_ARGUMENT, "medium is NULL");
    char *msg = s->error.message;
    const size_t size = sizeof s->error.message;
    dg_prepared prep;
    marks boundary_marks = {{NULL, NULL}};
    int st = dg_prepared_init_grid(&prep, m->nx, m->ny, m->nz, msg, size);
    if (st == DG_OK) st = SFX(check_sparse_header)(m, msg, size);
    if (st == DG_OK && marks_take(s, 0, &boundary_marks, &prep) != DG_OK) {
        snprintf(msg, size, "out of memory");
        st = DG_ERR_OUT_OF_MEMORY;
    }
    int parallel_done = 0; /* boundary_marks marked exactly at prep's boundary list */
    const dg_host_loop threads = {s->options.num_threads, s->options.backend == DG_BACKEND_CUDA};
    if (st == DG_OK) {
        st = SFX(prepare_parallel)(s, &prep, m, &boundary_marks, threads, msg, size);
        parallel_done = st == DG_OK;
        if (st == SPARSE_SERIAL_PATH) { /* a problem in the input: the serial path names it */
            dg_prepared_free(&prep);
            marks_free(&boundary_marks);
            st = dg_prepared_init_grid(&prep, m->nx, m->ny, m->nz, msg, size);
            if (st == DG_OK && marks_alloc(&boundary_marks, &prep) != DG_OK) {
                snprintf(msg, size, "out of memory");
                st = DG_ERR_OUT_OF_MEMORY;
            }
            if (st == DG_OK) st = SFX(prepare_serial)(&prep, m, &boundary_marks, msg, size);
        }
    }
    if (st == DG_OK) {
        outside_job j = {&prep, &boundary_marks, 0, 0};
        for (j.colour = 0; j.colour < 2; ++j.colour)
            dg_host_for(threads, (size_t)prep.charge_count[j.colour], PARALLEL_GRAIN, outside_range,
                        &j);
        prep.charges_not_interior = (int)j.outside;
        prep.nonlinear_ready = prep.has_salt && m->nonlinear_coefficient != 0.0;
        prep.nonlinear_coefficient = m->nonlinear_coefficient;
        for (int i = 0; i < 4; ++i)
            prep.chi[i] = m->chi[i];
    }
    marks_give(s, 0, &boundary_marks, &prep, st == DG_OK && parallel_done, prep.boundary_index,
               prep.boundary_count, threads);
    if (st != DG_OK) {
        dg_prepared_free(&prep);
        return s->error.status = st;
    }
    return dg_install_medium(s, &prep);
}
