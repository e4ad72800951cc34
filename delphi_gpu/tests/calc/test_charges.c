/* Trilinear charge assignment: weights, sums, first moments, refusals at the faces; along
 * periodic axes the shares taken to the interior points the faces stand for, one period's
 * repeat of a charged atom found; the periodic images of the surface's atoms. */
#include <omp.h>
#include <string.h>

#include "charges.h"
#include "check.h"
#include "medium.h"
#include "periodic_images.h"
#include "test_support.h"

/* Periodic z on a 21^3 grid (period 19 spacings): an atom whose cell touches both z faces'
   neighbourhoods spreads onto the interior points they stand for, the total kept; with z fixed
   it is refused; x stays fixed (its faces still refuse). */
static void periodic_shares(void) {
    grid_spec g = {0};
    g.n = 21, g.scale = 2.0, g.periodic = 4;
    /* grid z coordinate 19.25: corners at z = 19 and 20; 20 is face n-1 = the image of 1 */
    const double xyz[3] = {0.3, -0.7, (19.25 - 10.0) / 2.0}, q = 0.8, r = 1.0;
    calc_molecule mol = test_molecule(1, xyz, &q, &r);
    charge_list c;
    char msg[512];
    CHECK(charges_spread(&mol, &g, 0, &c, msg, sizeof msg) == 0, "%s", msg);
    double at_1 = 0.0, at_19 = 0.0, total = 0.0;
    for (long e = 0; e < c.count; ++e) {
        const long z = c.index[e] / (21L * 21L);
        CHECK(z >= 1 && z <= 19, "share on plane %ld", z);
        at_1 += z == 1 ? c.value[e] : 0.0, at_19 += z == 19 ? c.value[e] : 0.0;
        total += c.value[e];
    }
    CHECK_NEAR(total, q, 1e-15);
    CHECK_NEAR(at_19, 0.75 * q, 1e-15);
    CHECK_NEAR(at_1, 0.25 * q, 1e-15);
    charge_list_free(&c);
    g.periodic = 0;
    CHECK(charges_spread(&mol, &g, 0, &c, msg, sizeof msg) != 0 && strstr(msg, "face"));
    charge_list_free(&c);
    g.periodic = 4;
    mol.atoms[0].x = (19.5 - 10.0) / 2.0; /* on the x faces' cells: refused along a fixed axis */
    CHECK(charges_spread(&mol, &g, 0, &c, msg, sizeof msg) != 0 && strstr(msg, "face"));
    charge_list_free(&c);
    test_molecule_free(&mol);

    /* The same charged atom one period (9.5 A) over is found, naming both; two atoms at one
       place are not (the molecule's own business), nor one period over along a fixed axis. */
    const double two[9] = {0.3, 0.2, 1.0, 0.3, 0.2, 1.0 - 9.5, 1.4, -2.0, 0.5};
    const double q3[3] = {0.5, 0.5, -1.0}, r3[3] = {1.0, 1.0, 1.0};
    mol = test_molecule(3, two, q3, r3);
    long first = -1, second = -1;
    CHECK(charges_periodic_repeat(&mol, &g, &first, &second) == 0 && first == 0 && second == 1);
    mol.atoms[1].z = 1.0;
    CHECK(charges_periodic_repeat(&mol, &g, &first, &second) == 1);
    mol.atoms[1].x = 0.3 + 9.5, mol.atoms[1].z = 1.0;
    CHECK(charges_periodic_repeat(&mol, &g, &first, &second) == 1);

    /* Images: the atom near the z faces gets one copy per side it reaches, charge 0, standing
       for its atom; the one in the middle none; x does not repeat. */
    mol.atoms[1].x = 0.3, mol.atoms[1].z = 4.0; /* 1 A from the z = 5 A face */
    calc_molecule ext;
    long *of = NULL;
    CHECK(periodic_images(&mol, &g, 1.0, &ext, &of) == 0);
    CHECK(ext.count == 4 && of[3] == 1 && ext.atoms[3].charge == 0.0, "%zu atoms", ext.count);
    CHECK_NEAR(ext.atoms[3].z, 4.0 - 9.5, 1e-12);
    CHECK(ext.atoms[3].x == mol.atoms[1].x && ext.atoms[3].radius == mol.atoms[1].radius);
    free(ext.atoms), free(of);
    g.periodic = 1 | 4; /* x too: atom 2 sits 1 A from neither x face (x = 0.3) */
    CHECK(periodic_images(&mol, &g, 1.0, &ext, &of) == 0 && ext.count == 4);
    free(ext.atoms), free(of);
    test_molecule_free(&mol);

    /* The maps' comparison across periodic faces: equal maps, then one differing value. */
    medium_maps m = {0};
    m.n = 7;
    for (int a = 0; a < 3; ++a)
        m.face[a] = calloc(343, 1);
    long mismatch[3], compared[3];
    medium_periodic_mismatch(&m, 4, mismatch, compared);
    CHECK(mismatch[2] == 0 && compared[2] == 25 * 5 && mismatch[0] == 0 && compared[0] == 0);
    m.face[0][2 + 7 * (3 + 7 * 0)] = 1; /* plane z = 0 differs from plane z = 5 there */
    medium_periodic_mismatch(&m, 4, mismatch, compared);
    CHECK(mismatch[2] == 1);
    for (int a = 0; a < 3; ++a)
        free(m.face[a]);
}

int main(void) {
    /* Weights sum to 1 and reproduce the position (first moment) for arbitrary points. */
    unsigned seed = 12345;
    for (int t = 0; t < 200; ++t) {
        double gc[3];
        for (int a = 0; a < 3; ++a) {
            seed = seed * 1103515245u + 12345u;
            gc[a] = 1.0 + 8.0 * ((seed >> 8) & 0xffff) / 65536.0;
        }
        int base[3];
        double w[8], sum = 0, moment[3] = {0, 0, 0};
        trilinear_weights(gc, base, w);
        for (int k = 0; k < 8; ++k) {
            CHECK(w[k] >= 0.0);
            sum += w[k];
            for (int a = 0; a < 3; ++a)
                moment[a] += w[k] * (base[a] + ((k >> a) & 1));
        }
        CHECK_NEAR(sum, 1.0, 1e-14);
        for (int a = 0; a < 3; ++a)
            CHECK_NEAR(moment[a], gc[a], 1e-12);
    }
    /* A molecule's spread charges add up to its charge, atom by atom. */
    grid_spec g = {0};
    g.n = 21, g.scale = 2.0;
    const double xyz[9] = {0.13, -0.7, 1.9, 2.21, 3.3, -4.05, -3.3, 0.53, 0.25};
    const double q[3] = {0.7, -1.3, 0.25}, r[3] = {1, 1, 1};
    calc_molecule mol = test_molecule(3, xyz, q, r);
    charge_list c;
    char msg[512];
    CHECK(charges_spread(&mol, &g, 0, &c, msg, sizeof msg) == 0);
    CHECK(c.charged_atoms == 3);
    CHECK(c.count == 24);
    double total = 0;
    for (long k = 0; k < c.count; ++k)
        total += c.value[k];
    CHECK_NEAR(total, 0.7 - 1.3 + 0.25, 1e-12);
    CHECK_NEAR(c.net_charge, 0.7 - 1.3 + 0.25, 1e-12);
    double atom0 = 0; /* first atom's shares are the first 8 entries */
    for (int k = 0; k < 8; ++k)
        atom0 += c.value[k];
    CHECK_NEAR(atom0, 0.7, 1e-12);
    charge_list_free(&c);
    /* An atom on a grid point keeps its whole charge there. */
    mol.atoms[0].x = 0.5, mol.atoms[0].y = 0, mol.atoms[0].z = -1;
    CHECK(charges_spread(&mol, &g, 0, &c, msg, sizeof msg) == 0);
    CHECK(c.index[0] == 11 + 21 * (10 + 21 * 8));
    CHECK_NEAR(c.value[0], 0.7, 1e-12);
    charge_list_free(&c);
    /* A charge whose cell touches a face is refused, naming the atom (1-based) ... */
    mol.atoms[1].x = 4.8; /* grid x = 19.6: shares on x = 19 and the face 20 */
    CHECK(charges_spread(&mol, &g, 0, &c, msg, sizeof msg) != 0);
    CHECK(strstr(msg, "atom 2 ") != NULL && strstr(msg, "face") != NULL && c.failed_atom == 1);
    /* The check made before the geometry names the same atom with the same message, the
       first in atom order when several would land on a face, and -1 when all fit. */
    char early[512];
    CHECK(charges_check_interior(&mol, &g, early, sizeof early) == 1 && strcmp(early, msg) == 0);
    mol.atoms[2].z = -4.9; /* grid z = 0.2: shares on the face z = 0 */
    CHECK(charges_check_interior(&mol, &g, early, sizeof early) == 1);
    mol.atoms[1].x = 2.21;
    CHECK(charges_check_interior(&mol, &g, early, sizeof early) == 2 && strstr(early, "atom 3 "));
    mol.atoms[2].z = -4.05;
    CHECK(charges_check_interior(&mol, &g, early, sizeof early) == -1);
    mol.atoms[2].charge = 0.0; /* an uncharged atom on a face is no problem */
    mol.atoms[2].z = -5.0;
    CHECK(charges_check_interior(&mol, &g, early, sizeof early) == -1);
    mol.atoms[2].charge = 0.25, mol.atoms[2].z = -4.05, mol.atoms[1].x = 4.8;
    /* ... unless focusing, where the shares outside the interior are dropped and counted. */
    CHECK(charges_spread(&mol, &g, 1, &c, msg, sizeof msg) == 0);
    CHECK(c.atoms_outside == 1);
    CHECK(c.charge_outside < 0.0 && c.charge_outside > -1.3);
    CHECK_NEAR(c.net_charge + c.charge_outside, 0.7 - 1.3 + 0.25, 1e-12);
    charge_list_free(&c);
    test_molecule_free(&mol);

    /* A large molecule is spread on the threads: the same list, bit for bit and in order, as
       the atom-by-atom definition (and as the serial loop focusing uses); the first bad atom in
       atom order refused. */
    omp_set_num_threads(4);
    enum { MANY = 20000 };
    double *many_xyz = malloc(3 * MANY * sizeof *many_xyz), *many_q = malloc(MANY * sizeof *many_q);
    double *many_r = malloc(MANY * sizeof *many_r);
    for (int i = 0; i < MANY; ++i) {
        for (int a = 0; a < 3; ++a) {
            seed = seed * 1103515245u + 12345u;
            many_xyz[3 * i + a] = -4.4 + 8.8 * ((seed >> 8) & 0xffff) / 65536.0;
        }
        seed = seed * 1103515245u + 12345u;
        many_q[i] = i % 7 == 3 ? 0.0 : ((seed >> 8) & 0xffff) / 65536.0 - 0.5;
        many_r[i] = 1.5;
    }
    calc_molecule big = test_molecule(MANY, many_xyz, many_q, many_r);
    CHECK(charges_spread(&big, &g, 0, &c, msg, sizeof msg) == 0);
    charge_list serial;
    CHECK(charges_spread(&big, &g, 1, &serial, msg, sizeof msg) == 0 && serial.atoms_outside == 0);
    long entries = 0, wrong = 0;
    double net = 0.0;
    int charged = 0;
    for (int i = 0; i < MANY; ++i) {
        if (many_q[i] == 0.0) continue;
        ++charged;
        const double gc[3] = {grid_coordinate(&g, 0, many_xyz[3 * i]),
                              grid_coordinate(&g, 1, many_xyz[3 * i + 1]),
                              grid_coordinate(&g, 2, many_xyz[3 * i + 2])};
        int base[3];
        double w[8];
        trilinear_weights(gc, base, w);
        for (int k = 0; k < 8; ++k) {
            if (w[k] == 0.0) continue;
            const long index = (base[0] + (k & 1)) + 21L * ((base[1] + ((k >> 1) & 1)) +
                                                            21L * (base[2] + ((k >> 2) & 1)));
            const double value = w[k] * many_q[i];
            if (entries < c.count) wrong += c.index[entries] != index || c.value[entries] != value;
            net += value, ++entries;
        }
    }
    CHECK(c.count == entries && wrong == 0, "%ld entries (%ld expected), %ld wrong", c.count,
          entries, wrong);
    CHECK(c.net_charge == net && c.charged_atoms == charged && c.failed_atom == -1);
    CHECK(serial.count == c.count && serial.net_charge == c.net_charge &&
          memcmp(serial.index, c.index, (size_t)c.count * sizeof *c.index) == 0 &&
          memcmp(serial.value, c.value, (size_t)c.count * sizeof *c.value) == 0);
    charge_list_free(&c), charge_list_free(&serial);
    big.atoms[15000].charge = NAN, big.atoms[12000].x = 4.8; /* 12000 lands on a face */
    CHECK(charges_spread(&big, &g, 0, &c, msg, sizeof msg) != 0 && c.failed_atom == 12000 &&
          strstr(msg, "atom 12001 ") && strstr(msg, "face"));
    big.atoms[3000].charge = INFINITY;
    CHECK(charges_spread(&big, &g, 0, &c, msg, sizeof msg) != 0 && c.failed_atom == 3000 &&
          strstr(msg, "atom 3001 has a non-finite charge"));
    test_molecule_free(&big);
    free(many_xyz), free(many_q), free(many_r);
    periodic_shares();
    CHECK_DONE();
}
