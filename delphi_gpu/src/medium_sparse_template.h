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
    /* The value within 1e-5 of 1/6 is the no-salt factor. */
    const double sixth = 1.0 / 6.0;
    double f0 = sixth, f1 = 0.0;
    int have_salt = 0;
    for (int i = 0; i < ndistinct; ++i) {
        if (fabs(distinct[i] - sixth) <= 1e-5 * sixth)
            f0 = distinct[i];
        else if (!have_salt)
            f1 = distinct[i], have_salt = 1;
        else {
            snprintf(msg, size,
                     "salt factors %g and %g: neither is the no-salt factor 1/6 (DelPhi's sf "
                     "arrays hold 1/6 where there are no ions)",
                     distinct[0], distinct[1]);
            return DG_ERR_UNSUPPORTED;
        }
    }
    p->factor[0] = f0;
    p->factor[1] = have_salt ? f1 : f0;
    p->has_salt = have_salt;
    if (!have_salt) return DG_OK;
    if (dg_prepared_alloc_flags(p) != DG_OK) {
        snprintf(msg, size, "out of memory for the salt flags");
        return DG_ERR_OUT_OF_MEMORY;
    }
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
    if (st == DG_OK && marks_alloc(&boundary_marks, &prep) != DG_OK) {
        snprintf(msg, size, "out of memory");
        st = DG_ERR_OUT_OF_MEMORY;
    }
    if (st == DG_OK) st = SFX(load_lists)(&prep, m, &boundary_marks, msg, size);
    if (st == DG_OK && m->salt_model == DG_SALT_PER_POINT)
        st = SFX(classify_salt_factors)(&prep, m, &boundary_marks, msg, size);
    if (st == DG_OK && m->salt_model == DG_SALT_FLAG)
        st = SFX(set_solvent_flags)(&prep, m, &boundary_marks, msg, size);
    if (st == DG_OK) st = SFX(convert_boundary_weights)(&prep, m, msg, size);
    if (st == DG_OK) {
        for (int c = 0; c < 2; ++c)
            for (int k = 0; k < prep.charge_count[c]; ++k) {
                int h = prep.charge_index[c][k];
                if (boundary_marks.m[c][h] || (prep.has_salt && prep.flag[c][h]))
                    prep.charges_not_interior++;
            }
        prep.nonlinear_ready = prep.has_salt && m->nonlinear_coefficient != 0.0;
        prep.nonlinear_coefficient = m->nonlinear_coefficient;
        for (int i = 0; i < 4; ++i)
            prep.chi[i] = m->chi[i];
    }
    marks_free(&boundary_marks);
    if (st != DG_OK) {
        dg_prepared_free(&prep);
        return s->error.status = st;
    }
    return dg_install_medium(s, &prep);
}
