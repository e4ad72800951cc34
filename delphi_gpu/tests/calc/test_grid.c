/* Grid rules (DelPhi): sizes from scale/perfil/gsize, centring, coordinates, memory check. */
#include <math.h>
#include <string.h>

#include "calculation.h"
#include "check.h"
#include "grid.h"
#include "test_support.h"

int main(void) {
    dg_calc_params s;
    grid_spec g;
    char msg[512];
    /* One atom of radius 2 at (1,2,3): box side 4 A.  Defaults scale 1.2, perfil 80:
       4 * 1.2 / 0.8 = 6 intervals -> 7 points, perfil exactly 80. */
    const double one_xyz[3] = {1, 2, 3}, one_q[1] = {1}, one_r[1] = {2};
    calc_molecule one = test_molecule(1, one_xyz, one_q, one_r);
    test_default_params(&s);
    CHECK(grid_choose(&s, &one, &g, msg, sizeof msg) == 0);
    CHECK(g.n == 7);
    CHECK_NEAR(g.scale, 1.2, 1e-12);
    CHECK_NEAR(g.perfil, 80.0, 1e-9);
    CHECK_NEAR(g.center[0], 1.0, 1e-12);
    CHECK_NEAR(g.center[2], 3.0, 1e-12);
    CHECK_NEAR(g.largest_extent, 4.0, 1e-12);
    /* DelPhi's 1-based rule g = (x - c) scale + (n+1)/2; ours is 0-based. */
    CHECK_NEAR(grid_coordinate(&g, 0, 1.0) + 1, (g.n + 1) / 2.0, 1e-12);
    CHECK_NEAR(grid_coordinate(&g, 1, 2.0 + 1.0 / 1.2), 4.0, 1e-12);
    CHECK_NEAR(grid_position(&g, 2, 4.0), 3.0 + 1.0 / 1.2, 1e-12);

    /* Two atoms: x extent from -1 to 11 (12 A).  scale 2, perfil 60: 12 * 2 / 0.6 = 40 -> 41. */
    const double two_xyz[6] = {0, 0, 0, 10, 1, 0}, two_q[2] = {1, -1}, two_r[2] = {1, 1};
    calc_molecule two = test_molecule(2, two_xyz, two_q, two_r);
    test_default_params(&s);
    s.scale = 2, s.perfil = 60;
    CHECK(grid_choose(&s, &two, &g, msg, sizeof msg) == 0);
    CHECK(g.n == 41);
    CHECK_NEAR(g.perfil, 60.0, 1e-9);
    CHECK_NEAR(g.center[0], 5.0, 1e-12);
    CHECK_NEAR(g.center[1], 0.5, 1e-12);
    /* DelPhi's rule: scale 100 / perfil extent = 34.29 points, truncated to 34, made odd: 35
       (the molecule then fills a little more than asked, 12 * 2 / 34 = 70.6 %). */
    s.perfil = 70;
    CHECK(grid_choose(&s, &two, &g, msg, sizeof msg) == 0);
    CHECK(g.n == 35);
    CHECK_NEAR(g.perfil, 100.0 * 12 * 2 / 34, 1e-9);
    /* 13.5 A at scale 2, perfil 60: 45 points, odd already. */
    const double long_xyz[6] = {0, 0, 0, 11.5, 0, 0};
    calc_molecule longer = test_molecule(2, long_xyz, two_q, two_r);
    CHECK(grid_choose(&s, &longer, &g, msg, sizeof msg) == 0);
    CHECK(g.n == 39); /* 13.5 * 2 / 0.7 = 38.57 -> 38 -> 39 */
    s.perfil = 60;
    CHECK(grid_choose(&s, &longer, &g, msg, sizeof msg) == 0);
    CHECK(g.n == 45);
    /* Lysozyme's case (scale 2, perfil 70, largest extent 48.893 A): 139.69 -> 139 points. */
    const double lys_xyz[6] = {0, 0, 0, 46.893, 0, 0};
    calc_molecule lys = test_molecule(2, lys_xyz, two_q, two_r);
    s.perfil = 70;
    CHECK(grid_choose(&s, &lys, &g, msg, sizeof msg) == 0);
    CHECK(g.n == 139);
    /* An off-centre grid is sized by twice the largest reach from its centre (DelPhi). */
    s.center_mode = DG_CENTER_ABSOLUTE, s.center[0] = 0, s.center[1] = 0, s.center[2] = 0;
    CHECK(grid_choose(&s, &lys, &g, msg, sizeof msg) == 0);
    CHECK(g.n == 273); /* 2 * 47.893 * 2 / 0.7 = 273.67 -> 273 */
    test_molecule_free(&longer);
    test_molecule_free(&lys);

    /* gsize and scale: both kept, perfil derived; even gsize made odd with a note. */
    test_default_params(&s);
    s.grid_size = 64, s.scale = 2;
    CHECK(grid_choose(&s, &two, &g, msg, sizeof msg) == 0);
    CHECK(g.n == 65);
    CHECK(strstr(g.note, "even") != NULL);
    CHECK_NEAR(g.perfil, 100.0 * 12 * 2 / 64, 1e-9);
    /* gsize alone: scale from the default perfil 80. */
    test_default_params(&s);
    s.grid_size = 65, s.scale = 0;
    CHECK(grid_choose(&s, &two, &g, msg, sizeof msg) == 0);
    CHECK_NEAR(g.scale, 64 * 0.8 / 12, 1e-12);
    /* An even gsize with perfil: the scale from the size as given (63 spacings), then 65
       points (DelPhi's order; stock DelPhi 2010 gives this scale). */
    s.grid_size = 64;
    CHECK(grid_choose(&s, &two, &g, msg, sizeof msg) == 0);
    CHECK(g.n == 65 && strstr(g.note, "even") != NULL);
    CHECK_NEAR(g.scale, 63 * 0.8 / 12, 1e-12);
    /* Centre modes: absolute (acenter) and offset in grid units (center). */
    test_default_params(&s);
    s.scale = 2;
    s.center_mode = 1, s.center[0] = -3, s.center[1] = 4, s.center[2] = 7;
    CHECK(grid_choose(&s, &two, &g, msg, sizeof msg) == 0);
    CHECK_NEAR(g.center[0], -3, 1e-12);
    CHECK_NEAR(g.center[2], 7, 1e-12);
    /* DelPhi's center(): the molecule moved 4 and -2 grid units from the grid's middle, so the
       grid centre is the box centre (5, ., 0) minus the offset / scale. */
    s.center_mode = 2, s.center[0] = 4, s.center[1] = 0, s.center[2] = -2;
    CHECK(grid_choose(&s, &two, &g, msg, sizeof msg) == 0);
    CHECK_NEAR(g.center[0], 5.0 - 2.0, 1e-12);
    CHECK_NEAR(g.center[2], 0.0 + 1.0, 1e-12);

    /* Refusals: too small a grid, no atoms, bad perfil. */
    test_default_params(&s);
    s.grid_size = 3;
    CHECK(grid_choose(&s, &two, &g, msg, sizeof msg) != 0 && strstr(msg, "gsize"));
    calc_molecule empty = {0};
    test_default_params(&s);
    CHECK(grid_choose(&s, &empty, &g, msg, sizeof msg) != 0);
    s.perfil = 150;
    CHECK(grid_choose(&s, &two, &g, msg, sizeof msg) != 0);
    /* A finite scale so large that the side would not fit a long: refused, not wrapped round. */
    test_default_params(&s);
    s.scale = 1e30;
    CHECK(grid_choose(&s, &two, &g, msg, sizeof msg) != 0 && strstr(msg, "far too many"));
    s.scale = 1e5;
    CHECK(grid_choose(&s, &two, &g, msg, sizeof msg) != 0 && strstr(msg, "far too many"));
    /* ... and a centre placed far from the atoms says so. */
    test_default_params(&s);
    s.center_mode = DG_CENTER_ABSOLUTE, s.center[0] = 1e9;
    CHECK(grid_choose(&s, &two, &g, msg, sizeof msg) != 0 && strstr(msg, "acenter"));
    /* A scale so small that the box is wider than any molecule's (its cell volume would be
       infinite at 1e-300): refused with the scale and the box width, given directly or derived
       from gsize and a tiny perfil.  The widest box accepted is GRID_MAX_BOX. */
    test_default_params(&s);
    s.grid_size = 65, s.scale = 1e-300;
    CHECK(grid_choose(&s, &two, &g, msg, sizeof msg) != 0 && strstr(msg, "scale 1e-300") &&
          strstr(msg, "box"));
    s.scale = 64.0 / GRID_MAX_BOX;
    CHECK(grid_choose(&s, &two, &g, msg, sizeof msg) == 0);
    s.scale = 64.0 / GRID_MAX_BOX * (1.0 - 1e-12);
    CHECK(grid_choose(&s, &two, &g, msg, sizeof msg) != 0 && strstr(msg, "box"));
    s.scale = 0, s.perfil = 1e-300;
    CHECK(grid_choose(&s, &two, &g, msg, sizeof msg) != 0 && strstr(msg, "box"));
    test_default_params(&s);
    s.scale = 1e-300;
    CHECK(grid_choose(&s, &two, &g, msg, sizeof msg) != 0 && strstr(msg, "box"));
    /* A molecule across fewer than two spacings: accepted, with a note; two or more: none. */
    test_default_params(&s);
    s.grid_size = 65, s.scale = 0.1; /* 12 A at 10 A per spacing */
    CHECK(grid_choose(&s, &two, &g, msg, sizeof msg) == 0 && strstr(g.note, "1.2 grid spacings"));
    s.scale = 2.0 / 12.0;
    CHECK(grid_choose(&s, &two, &g, msg, sizeof msg) == 0 && g.note[0] == '\0');

    /* The program's plan of the grid before any handle: grid_choose's size, or -1. */
    test_default_params(&s);
    s.scale = 2.0, s.perfil = 60.0;
    double position[6] = {0, 0, 0, 10, 1, 0}, charge[2] = {1, -1}, radius[2] = {1, 1};
    dg_atoms atoms = {2, position, charge, radius};
    int n = 0;
    CHECK(grid_choose(&s, &two, &g, msg, sizeof msg) == 0);
    CHECK(calc_plan_grid(&s, &atoms, &n) == 0 && n == g.n && n == 41);
    position[4] = NAN;
    CHECK(calc_plan_grid(&s, &atoms, &n) == -1 && n == 0);
    position[4] = 1.0, radius[1] = -1.0;
    CHECK(calc_plan_grid(&s, &atoms, &n) == -1);
    radius[1] = 1.0, atoms.count = 0;
    CHECK(calc_plan_grid(&s, &atoms, &n) == -1);
    atoms.count = 2, s.scale = -1.0;
    CHECK(calc_plan_grid(&s, &atoms, &n) == -1);

    /* Memory: a 101^3 double run is tens of MB; 20001^3 cannot fit anywhere. */
    memory_plan plan = {101, 1, 1, 0, 0, 0, 0, 0, 0};
    const double bytes = memory_estimate_bytes(&plan);
    CHECK(bytes > 101.0 * 101 * 101 * 20 && bytes < 1e9);
    /* The CPU backend's multigrid and Newton workspace count (about 49 and 44 B per point). */
    plan.host_multigrid = 1;
    const double with_mg = memory_estimate_bytes(&plan);
    plan.host_newton = 1;
    CHECK_NEAR((with_mg - bytes) / (101.0 * 101 * 101), 49.0, 1e-9);
    CHECK_NEAR((memory_estimate_bytes(&plan) - with_mg) / (101.0 * 101 * 101), 44.0, 1e-9);
    plan.host_multigrid = plan.host_newton = 0;
    CHECK(memory_check(&plan, msg, sizeof msg) == 0);
    plan.n = 20001;
    if (memory_available_bytes() > 0) {
        CHECK(memory_check(&plan, msg, sizeof msg) != 0);
        CHECK(strstr(msg, "GiB") != NULL);
    }
    test_molecule_free(&one);
    test_molecule_free(&two);
    CHECK_DONE();
}
