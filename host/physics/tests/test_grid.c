/* Grid rules (DelPhi): sizes from scale/perfil/gsize, centring, coordinates, memory check. */
#include <string.h>

#include "check.h"
#include "grid.h"
#include "test_support.h"

int main(void) {
    run_settings s;
    grid_spec g;
    char msg[512];
    /* One atom of radius 2 at (1,2,3): box side 4 A.  Defaults scale 1.2, perfil 80:
       4 * 1.2 / 0.8 = 6 intervals -> 7 points, perfil exactly 80. */
    const double one_xyz[3] = {1, 2, 3}, one_q[1] = {1}, one_r[1] = {2};
    molecule one = test_molecule(1, one_xyz, one_q, one_r);
    test_default_settings(&s);
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
    molecule two = test_molecule(2, two_xyz, two_q, two_r);
    test_default_settings(&s);
    s.scale = 2, s.scale_given = 1, s.perfil = 60, s.perfil_given = 1;
    CHECK(grid_choose(&s, &two, &g, msg, sizeof msg) == 0);
    CHECK(g.n == 41);
    CHECK_NEAR(g.perfil, 60.0, 1e-9);
    CHECK_NEAR(g.center[0], 5.0, 1e-12);
    CHECK_NEAR(g.center[1], 0.5, 1e-12);
    /* A fill that is not a whole number of intervals rounds the grid up: perfil <= asked. */
    s.perfil = 70;
    CHECK(grid_choose(&s, &two, &g, msg, sizeof msg) == 0);
    CHECK(g.n % 2 == 1 && g.perfil <= 70.0 + 1e-9 && g.perfil > 65.0);

    /* gsize and scale: both kept, perfil derived; even gsize made odd with a note. */
    test_default_settings(&s);
    s.gsize = 64, s.gsize_given = 1, s.scale = 2, s.scale_given = 1;
    CHECK(grid_choose(&s, &two, &g, msg, sizeof msg) == 0);
    CHECK(g.n == 65);
    CHECK(strstr(g.note, "even") != NULL);
    CHECK_NEAR(g.perfil, 100.0 * 12 * 2 / 64, 1e-9);
    /* gsize alone: scale from the default perfil 80. */
    test_default_settings(&s);
    s.gsize = 65, s.gsize_given = 1;
    CHECK(grid_choose(&s, &two, &g, msg, sizeof msg) == 0);
    CHECK_NEAR(g.scale, 64 * 0.8 / 12, 1e-12);
    /* Centre modes: absolute (acenter) and offset in grid units (center). */
    test_default_settings(&s);
    s.scale = 2, s.scale_given = 1;
    s.center_mode = 1, s.center[0] = -3, s.center[1] = 4, s.center[2] = 7;
    CHECK(grid_choose(&s, &two, &g, msg, sizeof msg) == 0);
    CHECK_NEAR(g.center[0], -3, 1e-12);
    CHECK_NEAR(g.center[2], 7, 1e-12);
    s.center_mode = 2, s.center[0] = 4, s.center[1] = 0, s.center[2] = -2;
    CHECK(grid_choose(&s, &two, &g, msg, sizeof msg) == 0);
    CHECK_NEAR(g.center[0], 5.0 + 2.0, 1e-12);
    CHECK_NEAR(g.center[2], 0.0 - 1.0, 1e-12);

    /* Refusals: too small a grid, no atoms, bad perfil. */
    test_default_settings(&s);
    s.gsize = 3, s.gsize_given = 1;
    CHECK(grid_choose(&s, &two, &g, msg, sizeof msg) != 0 && strstr(msg, "gsize"));
    molecule empty = {0};
    test_default_settings(&s);
    CHECK(grid_choose(&s, &empty, &g, msg, sizeof msg) != 0);
    s.perfil = 150, s.perfil_given = 1;
    CHECK(grid_choose(&s, &two, &g, msg, sizeof msg) != 0);

    /* Memory: a 101^3 double run is tens of MB; 20001^3 cannot fit anywhere. */
    memory_plan plan = {101, 1, 1, 0, 0, 0, 0};
    const double bytes = memory_estimate_bytes(&plan);
    CHECK(bytes > 101.0 * 101 * 101 * 20 && bytes < 1e9);
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
