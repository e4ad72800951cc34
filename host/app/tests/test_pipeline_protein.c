/* The whole program on the bundled protein (examples/1ubq: ubiquitin, 101^3 grid, 0.15 M salt):
 * it runs, converges, writes its outputs, the energies are finite and of the expected sign, and
 * float and double agree.  Float vs double tolerance: relative 1e-5 on the grid energy and
 * 1e-4 on the corrected reaction field, 1e-3 kT/e on site potentials.  The float solve stops
 * at maxc 1e-3 (float rounding of the ~10^3 kT/e potentials at charged points keeps the max
 * change near 2e-4, so 1e-4 is out of reach) while double stops at 1e-4; potentials then differ
 * by about the stopping change, ~1e-4 kT/e, which moves the 45000 kT grid energy by well under
 * 1e-5 relative and the -955 kT reaction field by under 1e-4. */
#include <math.h>
#include <string.h>

#include "app_test.h"
#include "io_maps.h"
#include "io_molecule.h"

#ifndef EXAMPLES_DIR
#error "EXAMPLES_DIR must be defined"
#endif

int main(void) {
    pipeline *d = calloc(1, sizeof *d), *f = calloc(1, sizeof *f);
    const char *prm = EXAMPLES_DIR "/1ubq/run.prm";
    int st =
        run_program(d, 1, (char *)prm, "--quiet", "--json", "double.json", "--solvation-two-run",
                    "--set", "site(a,q,p,r,c,atpo)", "--frc-format", "table", "--scrg-format",
                    "table", "--scrg", "1ubq.scrg", "--mrc", "1ubq.mrc", NULL);
    CHECK(st == EXIT_OK);
    const calc_result *r = d->result;
    CHECK(r->status == CALC_OK);
    CHECK(r->grid.n == 99); /* DelPhi's rule: 2 x 100 / 80 x 39.97 A = 99.9 points, truncated */
    CHECK(r->solve.outcome == DG_OUTCOME_CONVERGED);
    CHECK(r->boundary_count > 5000 && r->counts.charge_count > 5000);
    CHECK(isfinite(r->energy_grid) && r->energy_grid > 0);
    CHECK(isfinite(r->energy_coulombic) && r->energy_coulombic < 0);
    CHECK(isfinite(r->energy_reaction_field) && r->energy_reaction_field < 0);
    CHECK(isfinite(r->energy_solvation_two_run) && r->energy_solvation_two_run < 0);
    /* The two solvation estimates agree to within the usual few per cent. */
    CHECK_REL(r->energy_solvation_two_run, r->energy_reaction_field, 0.10);
    /* A neutral protein: Gauss's law leaves no net induced charge. */
    CHECK(fabs(r->rf.total_induced_charge) < 1e-3);
    CHECK(r->site_count == 1231);
    int finite_sites = 1;
    for (size_t i = 0; i < r->site_count; ++i)
        finite_sites &= isfinite(r->site_potential[i]);
    CHECK(finite_sites);
    CHECK(file_exists("1ubq.phi") && file_exists("1ubq.frc") && file_exists("double.json"));
    /* The written map holds the potential. */
    map_grid m;
    io_error err;
    CHECK(map_read("1ubq.phi", -1, &m, &err) == IO_OK);
    if (m.values) {
        double worst = 0;
        for (size_t w = 0; w < map_grid_points(&m); ++w)
            worst = fmax(worst, fabs(m.values[w] - phi_get(&r->phi, w)) /
                                    (1.0 + fabs(phi_get(&r->phi, w))));
        CHECK(worst < 1e-6); /* real*4 in the file */
        /* The MRC map holds the same reals on the same grid. */
        map_grid mrc;
        CHECK(map_read("1ubq.mrc", -1, &mrc, &err) == IO_OK);
        if (mrc.values) {
            CHECK(mrc.n[0] == 99 && mrc.n[1] == 99 && mrc.n[2] == 99);
            CHECK(memcmp(mrc.values, m.values, map_grid_points(&m) * sizeof(double)) == 0);
            CHECK_REL(mrc.scale, r->grid.scale, 1e-7);
            for (int a = 0; a < 3; a++)
                CHECK_NEAR(mrc.center[a], r->grid.center[a], 1e-5);
            map_grid_free(&mrc);
        }
        map_grid_free(&m);
    }
    /* Focusing from either map: the same boundary values but for the float rounding of the
       map's position (phimap: the centre; MRC: the first point). */
    pipeline *focus[2] = {calloc(1, sizeof(pipeline)), calloc(1, sizeof(pipeline))};
    const char *source[2] = {"1ubq.phi", "1ubq.mrc"}, *fine[2] = {"fine_a.phi", "fine_b.phi"};
    for (int i = 0; i < 2; i++)
        CHECK(run_program(focus[i], 0, (char *)prm, "--quiet", "--scale", "4", "--gsize", "65",
                          "--bndcon", "3", "--phi-in", source[i], "--phi", fine[i], "--frc",
                          fine[i][5] == 'a' ? "fine_a.frc" : "fine_b.frc", "--energy", "g",
                          NULL) == EXIT_OK);
    if (focus[0]->result && focus[1]->result) {
        printf("focused grid energy: from the phimap %.6f, from the MRC map %.6f kT\n",
               focus[0]->result->energy_grid, focus[1]->result->energy_grid);
        CHECK_REL(focus[1]->result->energy_grid, focus[0]->result->energy_grid, 1e-6);
    }
    for (int i = 0; i < 2; i++)
        pipeline_free(focus[i]), free(focus[i]);

    /* site(r) and site(c): with the molecule's atoms as sites, sum q r / 2 is the corrected
       reaction field and sum q c / 2 the Coulombic energy (the same sums in the other order),
       and the frc file's comment lines say so. */
    CHECK(r->site_reaction && r->site_coulombic);
    if (r->site_reaction && r->site_coulombic) {
        double rsum = 0.0, csum = 0.0;
        for (size_t i = 0; i < r->site_count; ++i)
            rsum += 0.5 * d->mol.atoms[i].charge * r->site_reaction[i],
                csum += 0.5 * d->mol.atoms[i].charge * r->site_coulombic[i];
        printf("site sums: reaction %.10f (energy %.10f), coulombic %.10f (energy %.10f) kT\n",
               rsum, r->energy_reaction_field, csum, r->energy_coulombic);
        CHECK_REL(rsum, r->energy_reaction_field, 1e-12);
        CHECK_REL(csum, r->energy_coulombic, 1e-12);
        /* site(atpo): at a charged atom the mean potential 0.5 A (or its radius) away along
           the axes, elsewhere the potential (the frc file's 14th column, 8 digits). */
        FILE *sites = fopen("1ubq.frc", "r");
        size_t atomic_right = 0, atomic_lines = 0, averaged = 0;
        char text[512];
        while (sites && fgets(text, sizeof text, sites)) {
            double col[9];
            if (frc_numbers(text, col, 9) != 8) continue;
            const atom *a = &d->mol.atoms[atomic_lines++];
            double want = r->site_potential[atomic_lines - 1];
            if (fabs(a->charge) >= 1e-6) {
                const double h = fmin(a->radius > 0.0 ? a->radius : 1.0, 0.5);
                double sum = 0.0, v;
                for (int k = 0; k < 6; ++k) {
                    double p[3] = {a->x, a->y, a->z};
                    p[k / 2] += k % 2 ? h : -h;
                    sum += phi_map_interpolate(&r->phi, p, &v) == 0 ? v : NAN;
                }
                want = sum / 6.0, ++averaged;
            }
            atomic_right += fabs(col[7] - want) <= 1e-6 * fabs(want) + 1e-9;
        }
        if (sites) fclose(sites);
        printf("site(atpo): %zu of %zu as defined (%zu averaged)\n", atomic_right, atomic_lines,
               averaged);
        CHECK(atomic_lines == r->site_count && atomic_right == atomic_lines && averaged > 1000);
        char *frc = read_file("1ubq.frc");
        const char *at = frc ? strstr(frc, "charge*reaction/2 = ") : NULL;
        CHECK(at && fabs(atof(at + 20) / r->energy_reaction_field - 1.0) < 1e-8);
        at = frc ? strstr(frc, "charge*coulombic/2 = ") : NULL;
        CHECK(at && fabs(atof(at + 21) / r->energy_coulombic - 1.0) < 1e-8);
        free(frc);
    }
    /* out(scrg): a line per boundary point, its grid indices those of the point, the charges
       summing to the induced charge and their energies to the corrected reaction field. */
    FILE *scrg = fopen("1ubq.scrg", "r");
    CHECK(scrg != NULL);
    size_t lines = 0, indices_right = 0;
    double qsum = 0.0, esum = 0.0, footer_e = NAN;
    char line[512];
    while (scrg && fgets(line, sizeof line, scrg)) {
        const char *at = strstr(line, "sum of energy = ");
        if (at) footer_e = atof(at + 16);
        long k, i, j, l;
        double x, y, z, q, e;
        if (line[0] == '#' || sscanf(line, "%ld %ld %ld %ld %lf %lf %lf %lf %lf", &k, &i, &j, &l,
                                     &x, &y, &z, &q, &e) != 9)
            continue;
        const long n = r->grid.n;
        if (k >= 1 && (size_t)k <= r->boundary_count)
            indices_right += r->boundary[k - 1] == i - 1 + n * (j - 1 + n * (l - 1));
        qsum += q, esum += e, ++lines;
    }
    if (scrg) fclose(scrg);
    printf("scrg: %zu charges, total %.6f e (%.6f), energies %.6f kT (%.6f)\n", lines, qsum,
           r->rf.total_induced_charge, esum, r->energy_reaction_field);
    CHECK(lines == r->boundary_count && indices_right == lines);
    CHECK_NEAR(qsum, r->rf.total_induced_charge, 1e-5);
    CHECK_REL(esum, r->energy_reaction_field, 1e-6);
    CHECK_REL(footer_e, r->energy_reaction_field, 1e-8);
    /* site(r) without energy(s): the reaction field is computed for the column all the same,
       from the same solve, so the column is the same. */
    pipeline *e = calloc(1, sizeof *e);
    st = run_program(e, 0, (char *)prm, "--quiet", "--energy", "g", "--set", "site(r)", "--frc",
                     "r_only.frc", "--phi", "r_only.phi", "--set",
                     "out(modpdb,file=\"used.pqr\",format=pqr)", NULL);
    CHECK(st == EXIT_OK && e->result && e->result->site_reaction && !e->result->site_coulombic);
    if (st == EXIT_OK && e->result->site_reaction && r->site_reaction)
        CHECK(memcmp(e->result->site_reaction, r->site_reaction, r->site_count * sizeof(double)) ==
              0);
    /* out(modpdb,format=pqr): the atoms as the run used them, read back as they were read. */
    molecule used = {0};
    io_notes notes;
    io_notes_clear(&notes);
    io_error err2;
    CHECK(molecule_read_pqr("used.pqr", &used, &notes, &err2) == IO_OK);
    size_t same = 0;
    for (size_t i = 0; i < used.count && i < e->mol.count; ++i) {
        const atom *a = &used.atoms[i], *b = &e->mol.atoms[i];
        same += fabs(a->x - b->x) < 5e-4 && fabs(a->y - b->y) < 5e-4 && fabs(a->z - b->z) < 5e-4 &&
                fabs(a->charge - b->charge) < 5e-5 && fabs(a->radius - b->radius) < 5e-5 &&
                !strcmp(a->name, b->name) && a->residue_number == b->residue_number;
    }
    CHECK(used.count == e->mol.count && same == used.count);
    molecule_free(&used);
    pipeline_free(e);
    free(e);

    st = run_program(f, 0, (char *)prm, "--quiet", "--precision", "float", "--maxc", "0.001",
                     "--json", "float.json", NULL);
    CHECK(st == EXIT_OK);
    const calc_result *q = f->result;
    CHECK(q->solve.precision == DG_PRECISION_FLOAT && q->solve.outcome == DG_OUTCOME_CONVERGED);
    printf("grid energy: double %.6f, float %.6f kT\n", r->energy_grid, q->energy_grid);
    printf("reaction field: double %.6f, float %.6f kT\n", r->energy_reaction_field,
           q->energy_reaction_field);
    CHECK_REL(q->energy_grid, r->energy_grid, 1e-5);
    CHECK_REL(q->energy_reaction_field, r->energy_reaction_field, 1e-4);
    CHECK(q->energy_coulombic == r->energy_coulombic); /* computed in double, summed in order */
    double site_diff = 0;
    for (size_t i = 0; i < q->site_count && i < r->site_count; ++i)
        site_diff = fmax(site_diff, fabs(q->site_potential[i] - r->site_potential[i]));
    printf("largest site potential difference %.3g kT/e\n", site_diff);
    CHECK(site_diff < 1e-3);
    pipeline_free(d);
    pipeline_free(f);
    free(d), free(f);
    CHECK_DONE();
}
