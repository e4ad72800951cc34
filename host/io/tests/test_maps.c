/* Map writers and readers: DelPhi phimap (exact round trip, byte layout, big-endian and real*8
 * variants, damaged files), OpenDX and cube (round trip to printed precision on a non-cubic
 * grid, z-fastest order), MRC2014/CCP4 (header words, exact round trip, another program's
 * big-endian file with permuted axes, an extended header and the position from the starts or
 * ORIGIN, and what the reader refuses), format recognition and grid coordinates; DelPhi's
 * compact dielectric map (out(eps)): its words, layout, round trip and refusals. */
#include "test_util.h"

#include <stdint.h>

#include "host_io.h"

/* A value that differs at every point and is not float-exact. */
static double sample(int i, int j, int k) {
    return sin(0.3 * i + 1.0) * cos(0.17 * j) + 0.01 * k - 1.0 / 3.0;
}

static void fill(map_grid *m) {
    for (int k = 0; k < m->n[2]; k++)
        for (int j = 0; j < m->n[1]; j++)
            for (int i = 0; i < m->n[0]; i++)
                m->values[i + m->n[0] * (j + m->n[1] * k)] = sample(i, j, k);
}

static void test_coordinates(void) {
    map_grid m;
    io_error err;
    int n[3] = {5, 7, 9};
    double c[3] = {1.0, -2.0, 3.5};
    CHECK_OK(map_grid_alloc(&m, n, 2.0, c, &err), err);
    CHECK(map_grid_coordinate(&m, 0, 3) == 1.0); /* middle point (n+1)/2 */
    CHECK(map_grid_coordinate(&m, 1, 4) == -2.0);
    CHECK(map_grid_coordinate(&m, 2, 1) == 3.5 - 4 / 2.0);
    CHECK(map_grid_coordinate(&m, 0, 5) == 2.0);
    CHECK(map_grid_points(&m) == 315 && m.values[314] == 0.0);
    map_grid_free(&m);
}

static uint32_t le32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Fortran-style records written independently of the library: byte order and real size. */
static int hand_big_endian;
static void put32(FILE *fp, uint32_t v) {
    unsigned char p[4] = {v & 0xff, v >> 8 & 0xff, v >> 16 & 0xff, v >> 24 & 0xff};
    if (hand_big_endian) {
        unsigned char q[4] = {p[3], p[2], p[1], p[0]};
        fwrite(q, 1, 4, fp);
    } else
        fwrite(p, 1, 4, fp);
}
static void put_real(FILE *fp, double d, int size) {
    if (size == 4) {
        float f = (float)d;
        uint32_t v;
        memcpy(&v, &f, 4);
        put32(fp, v);
        return;
    }
    uint64_t v;
    memcpy(&v, &d, 8);
    uint32_t hi = (uint32_t)(v >> 32), lo = (uint32_t)(v & 0xffffffffu);
    put32(fp, hand_big_endian ? hi : lo);
    put32(fp, hand_big_endian ? lo : hi);
}
static void write_by_hand(const char *path, int big_endian, int size, const map_grid *m) {
    hand_big_endian = big_endian;
    FILE *fp = fopen(path, "wb");
    size_t points = map_grid_points(m);
    put32(fp, 20), fwrite("a map made by a test", 1, 20, fp), put32(fp, 20);
    put32(fp, 70);
    fwrite("potential ", 1, 10, fp);
    for (int i = 0; i < 60; i++)
        fputc(' ', fp);
    put32(fp, 70);
    put32(fp, (uint32_t)(size * points));
    for (size_t i = 0; i < points; i++)
        put_real(fp, m->values[i], size);
    put32(fp, (uint32_t)(size * points));
    put32(fp, 16), fwrite("end of the map  ", 1, 16, fp), put32(fp, 16);
    put32(fp, (uint32_t)(4 * size + 4));
    put_real(fp, m->scale, size);
    for (int k = 0; k < 3; k++)
        put_real(fp, m->center[k], size);
    put32(fp, (uint32_t)m->n[0]);
    put32(fp, (uint32_t)(4 * size + 4));
    fclose(fp);
}

static void test_phimap(void) {
    map_grid m, r;
    io_error err;
    int n[3] = {17, 17, 17};
    double c[3] = {12.25, -3.5, 0.125}; /* float-exact, so the round trip is exact */
    CHECK_OK(map_grid_alloc(&m, n, 1.5, c, &err), err);
    fill(&m);
    snprintf(m.title, sizeof m.title, "round trip test");
    CHECK_OK(map_write("t.phi", MAP_DELPHI, &m, NULL, &err), err);
    CHECK_OK(map_read("t.phi", MAP_DELPHI, &r, &err), err);
    CHECK(r.n[0] == 17 && r.n[1] == 17 && r.n[2] == 17 && r.scale == 1.5);
    CHECK(r.center[0] == 12.25 && r.center[1] == -3.5 && r.center[2] == 0.125);
    CHECK(strcmp(r.kind, "potential") == 0 && strcmp(r.title, "round trip test") == 0);
    size_t mismatches = 0;
    for (size_t i = 0; i < map_grid_points(&m); i++)
        if (r.values[i] != (double)(float)m.values[i]) mismatches++;
    CHECK(mismatches == 0);
    map_grid_free(&r);

    /* Byte layout: 5 records with 4-byte little-endian markers. */
    FILE *fp = fopen("t.phi", "rb");
    size_t points = 17 * 17 * 17, expect = 28 + 78 + 8 + 4 * points + 24 + 28;
    unsigned char *b = malloc(expect + 16);
    size_t got = fp ? fread(b, 1, expect + 16, fp) : 0;
    if (fp) fclose(fp);
    CHECK(got == expect);
    if (got == expect) {
        CHECK(le32(b) == 20 && le32(b + 24) == 20 && le32(b + 28) == 70);
        CHECK(memcmp(b + 32, "potential ", 10) == 0);
        CHECK(le32(b + 106) == 4 * points);
        float v0, v1;
        uint32_t u = le32(b + 110), u1 = le32(b + 114);
        memcpy(&v0, &u, 4);
        memcpy(&v1, &u1, 4);
        CHECK(v0 == (float)sample(0, 0, 0) && v1 == (float)sample(1, 0, 0)); /* x fastest */
        const unsigned char *r5 = b + expect - 28;
        CHECK(le32(r5) == 20 && le32(r5 + 20) == 17);
        float s;
        u = le32(r5 + 4);
        memcpy(&s, &u, 4);
        CHECK(s == 1.5f);
    }

    /* The same map written by hand in big-endian byte order reads the same. */
    write_by_hand("big.phi", 1, 4, &m);
    if (phimap_read("big.phi", &r, &err) == IO_OK) {
        CHECK(r.n[0] == 17 && r.scale == 1.5 && r.center[1] == -3.5);
        CHECK(r.values[5] == (double)(float)m.values[5]);
        CHECK(r.values[points - 1] == (double)(float)m.values[points - 1]);
        map_grid_free(&r);
    } else {
        CHECK_OK(IO_ERR_INPUT, err);
    }

    /* Damaged files. */
    fp = fopen("short.phi", "wb");
    fwrite(b, 1, expect / 2, fp);
    fclose(fp);
    int rc = phimap_read("short.phi", &r, &err);
    CHECK(rc == IO_ERR_INPUT);
    CHECK_CONTAINS(err.message, "short.phi");
    CHECK_CONTAINS(err.message, "truncated");
    b[102] ^= 0x01; /* trailing marker of record 2 */
    fp = fopen("corrupt.phi", "wb");
    fwrite(b, 1, expect, fp);
    fclose(fp);
    rc = phimap_read("corrupt.phi", &r, &err);
    CHECK(rc == IO_ERR_INPUT);
    CHECK_CONTAINS(err.message, "markers disagree");
    write_text("text.phi", "this is not a map at all\n");
    rc = phimap_read("text.phi", &r, &err);
    CHECK(rc == IO_ERR_INPUT);
    CHECK_CONTAINS(err.message, "not a DelPhi phimap");
    free(b);
    map_grid_free(&m);
}

/* A real*8 phimap (records 3 and 5 in double precision), written by hand. */
static void test_phimap_real8(void) {
    map_grid m, r;
    io_error err;
    int n[3] = {3, 3, 3};
    double c[3] = {1.0, 2.0, 3.0};
    CHECK_OK(map_grid_alloc(&m, n, 0.5, c, &err), err);
    for (int i = 0; i < 27; i++)
        m.values[i] = 0.1 * i + 1e-12; /* not float-exact */
    write_by_hand("r8.phi", 0, 8, &m);
    if (map_read("r8.phi", -1, &r, &err) == IO_OK) {
        CHECK(r.n[2] == 3 && r.scale == 0.5 && r.center[2] == 3.0);
        CHECK(r.values[26] == 0.1 * 26 + 1e-12); /* exact: no float conversion */
        map_grid_free(&r);
    } else {
        CHECK_OK(IO_ERR_INPUT, err);
    }
    map_grid_free(&m);
}

static void compare_text_map(const map_grid *m, const map_grid *r, double rel) {
    CHECK(r->n[0] == m->n[0] && r->n[1] == m->n[1] && r->n[2] == m->n[2]);
    CHECK_NEAR(r->scale, m->scale, 1e-8 * m->scale);
    for (int a = 0; a < 3; a++)
        CHECK_NEAR(r->center[a], m->center[a], 1e-7);
    if (r->n[0] != m->n[0] || r->n[1] != m->n[1] || r->n[2] != m->n[2]) return;
    size_t bad = 0;
    for (size_t i = 0; i < map_grid_points(m); i++)
        if (fabs(r->values[i] - m->values[i]) > rel * fabs(m->values[i])) bad++;
    CHECK(bad == 0);
}

static void test_dx_and_cube(void) {
    map_grid m, r;
    io_error err;
    int n[3] = {7, 9, 11}; /* non-cubic */
    double c[3] = {-10.3, 4.7, 22.1};
    CHECK_OK(map_grid_alloc(&m, n, 2.3, c, &err), err);
    fill(&m);

    CHECK_OK(map_write("t.dx", MAP_DX, &m, NULL, &err), err);
    char *text = read_text("t.dx");
    CHECK(text != NULL);
    if (text) {
        CHECK_CONTAINS(text, "\nobject 1 class gridpositions counts 7 9 11\n");
        CHECK_CONTAINS(text, "\nobject 2 class gridconnections counts 7 9 11\n");
        CHECK_CONTAINS(text, "\nobject 3 class array type double rank 0 items 693 data follows\n");
        CHECK_CONTAINS(text, "\nattribute \"dep\" string \"positions\"\n");
        CHECK_CONTAINS(text, "class field\n");
        /* First data line: z fastest, three values. */
        const char *data = strstr(text, "data follows\n");
        double v[4];
        int count = data ? sscanf(data + 13, "%lf %lf %lf\n%lf", &v[0], &v[1], &v[2], &v[3]) : 0;
        CHECK(count == 4);
        if (count == 4) {
            CHECK_NEAR(v[1], sample(0, 0, 1), 1e-6);
            CHECK_NEAR(v[3], sample(0, 0, 3), 1e-6);
        }
        free(text);
    }
    CHECK_OK(map_read("t.dx", MAP_DX, &r, &err), err);
    compare_text_map(&m, &r, 1e-6);
    map_grid_free(&r);

    molecule mol = {0};
    atom atoms[2] = {{.x = 1, .y = 2, .z = 3, .name = "CA"}, {.x = -1, .name = "O1"}};
    mol.atoms = atoms;
    mol.count = 2;
    CHECK_OK(map_write("atoms.cube", MAP_CUBE, &m, &mol, &err), err);
    CHECK_OK(map_write("t.cube", MAP_CUBE, &m, NULL, &err), err);
    text = read_text("t.cube");
    if (text) {
        int natoms = 0, nx = 0;
        double ox = 0, hx = 0;
        const char *l3 = strchr(strchr(text, '\n') + 1, '\n') + 1;
        sscanf(l3, "%d %lf", &natoms, &ox);
        sscanf(strchr(l3, '\n') + 1, "%d %lf", &nx, &hx);
        CHECK(natoms == 1 && nx == 7);
        CHECK_NEAR(ox, (c[0] - 3 / 2.3) / IO_BOHR_IN_ANGSTROM, 1e-7); /* Bohr */
        CHECK_NEAR(hx, 1.0 / 2.3 / IO_BOHR_IN_ANGSTROM, 1e-7);
        free(text);
    }
    text = read_text("atoms.cube");
    if (text) {
        CHECK_CONTAINS(text, "\n    2 ");
        CHECK_CONTAINS(text, "\n    6     6.00000000"); /* CA: carbon */
        CHECK_CONTAINS(text, "\n    8     8.00000000"); /* O1: oxygen */
        free(text);
    }
    const char *cubes[2] = {"t.cube", "atoms.cube"};
    for (int i = 0; i < 2; i++) {
        CHECK_OK(map_read(cubes[i], MAP_CUBE, &r, &err), err);
        compare_text_map(&m, &r, 1e-6);
        map_grid_free(&r);
    }

    /* Recognition by content. */
    const char *files[3] = {"t.dx", "t.cube", "t.phi"};
    int formats[3] = {MAP_DX, MAP_CUBE, MAP_DELPHI};
    for (int i = 0; i < 3; i++) {
        int f = -2;
        CHECK_OK(map_detect_format(files[i], &f, &err), err);
        CHECK(f == formats[i]);
    }
    map_grid_free(&m);
}

static void test_text_map_errors(void) {
    static const struct {
        const char *file, *text, *part;
        int status;
    } cases[] = {
        {"skew.dx",
         "object 1 class gridpositions counts 2 2 2\norigin 0 0 0\ndelta 1 0.5 0\n"
         "delta 0 1 0\ndelta 0 0 1\nobject 3 class array type double rank 0 items 8 "
         "data follows\n1 2 3 4 5 6 7 8\n",
         "not aligned", IO_ERR_UNSUPPORTED},
        {"aniso.dx",
         "object 1 class gridpositions counts 2 2 2\norigin 0 0 0\ndelta 1 0 0\n"
         "delta 0 2 0\ndelta 0 0 1\nobject 3 class array type double rank 0 items 8 "
         "data follows\n1 2 3 4 5 6 7 8\n",
         "same positive value", IO_ERR_UNSUPPORTED},
        {"items.dx",
         "object 1 class gridpositions counts 2 2 2\norigin 0 0 0\ndelta 1 0 0\n"
         "delta 0 1 0\ndelta 0 0 1\nobject 3 class array type double rank 0 items 9 "
         "data follows\n1 2 3 4 5 6 7 8 9\n",
         "9 items", IO_ERR_INPUT},
        {"short.dx",
         "# comment\nobject 1 class gridpositions counts 2 2 2\norigin 0 0 0\n"
         "delta 1 0 0\ndelta 0 1 0\ndelta 0 0 1\nobject 3 class array type double "
         "rank 0 items 8 data follows\n1 2 3\n4 5 6\nattribute \"dep\"\n",
         "expected 8 values", IO_ERR_INPUT},
        {"nan.dx",
         "object 1 class gridpositions counts 1 1 2\norigin 0 0 0\ndelta 1 0 0\n"
         "delta 0 1 0\ndelta 0 0 1\nobject 3 class array type double rank 0 items 2 "
         "data follows\n1 nan\n",
         "NaN", IO_ERR_INPUT},
        /* a header that places the map nowhere (it was read, and its faces were taken from
           the corner values) */
        {"nanorigin.dx",
         "object 1 class gridpositions counts 2 2 2\norigin nan 0 0\ndelta 1 0 0\n"
         "delta 0 1 0\ndelta 0 0 1\nobject 3 class array type double rank 0 items 8 "
         "data follows\n1 2 3 4 5 6 7 8\n",
         "origin is not finite", IO_ERR_INPUT},
        {"infdelta.dx",
         "object 1 class gridpositions counts 2 2 2\norigin 0 0 0\ndelta 1e400 0 0\n"
         "delta 0 1e400 0\ndelta 0 0 1e400\nobject 3 class array type double rank 0 items 8 "
         "data follows\n1 2 3 4 5 6 7 8\n",
         "not finite", IO_ERR_INPUT},
        {"nanorigin.cube",
         "t\nt\n1 nan 0 0\n2 1 0 0\n2 0 1 0\n2 0 0 1\n8 0 0 0 0\n1 2 3 4 5 6 7 8\n",
         "origin is not finite", IO_ERR_INPUT},
        {"mo.cube", "t\nt\n-1 0 0 0\n2 1 0 0\n2 0 1 0\n2 0 0 1\n8 0 0 0 0\n1 1\n1 2 3 4 5 6 7 8\n",
         "orbital", IO_ERR_UNSUPPORTED},
        {"short.cube", "t\nt\n1 0 0 0\n2 1 0 0\n2 0 1 0\n2 0 0 1\n8 0 0 0 0\n1 2 3\n",
         "only 6 bytes follow", IO_ERR_INPUT},
        {"broken.cube",
         "t\nt\n1 0 0 0\n2 1 0 0\n2 0 1 0\n2 0 0 1\n8 0 0 0 0\n1 2 3 x                \n",
         "ends or breaks", IO_ERR_INPUT},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_text(cases[i].file, cases[i].text);
        map_grid r;
        io_error err;
        int rc = map_read(cases[i].file, -1, &r, &err);
        CHECK(rc == cases[i].status);
        CHECK_CONTAINS(err.message, cases[i].file);
        CHECK_CONTAINS(err.message, cases[i].part);
    }
    /* A cube file in Angstrom (negative counts) and an APBS-like DX with odd spacing. */
    write_text("ang.cube", "t\nt\n1 -1.0 0 0\n-2 0.5 0 0\n-2 0 0.5 0\n-2 0 0 0.5\n0 0 0 0 0\n"
                           "1 2\n3 4\n5 6\n7 8\n");
    map_grid r;
    io_error err;
    CHECK_OK(map_read("ang.cube", MAP_CUBE, &r, &err), err);
    CHECK(r.scale == 2.0 && r.center[0] == -0.75 && r.values[1] == 5.0 && r.values[4] == 2.0);
    map_grid_free(&r);
}

/* MRC/CCP4: our file's header words, a round trip, and foreign files made by hand. */
static float le_f32(const unsigned char *p) {
    uint32_t u = le32(p);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

typedef struct mrc_hand {
    int big_endian, count[3], start[3], intervals[3], axes[3], mode, extended, labels;
    float cell[3], angle[3], origin[3];
    int stamp;
} mrc_hand;

/* A header and nc*nr*ns reals v(c, r, s) = 100 s + 10 r + c, written independently of the
 * library; `cut` bytes short of the end, one value NaN when nan is set. */
static void write_mrc_by_hand(const char *path, const mrc_hand *h, size_t cut, int nan) {
    hand_big_endian = h->big_endian;
    FILE *fp = fopen(path, "wb");
    uint32_t w[256];
    memset(w, 0, sizeof w);
    for (int a = 0; a < 3; a++) {
        w[a] = (uint32_t)h->count[a];
        w[4 + a] = (uint32_t)h->start[a];
        w[7 + a] = (uint32_t)h->intervals[a];
        memcpy(&w[10 + a], &h->cell[a], 4);
        memcpy(&w[13 + a], &h->angle[a], 4);
        w[16 + a] = (uint32_t)h->axes[a];
        memcpy(&w[49 + a], &h->origin[a], 4);
    }
    w[3] = (uint32_t)h->mode;
    w[23] = (uint32_t)h->extended;
    w[55] = (uint32_t)h->labels;
    for (int i = 0; i < 56; i++)
        if (i == 52)
            fwrite(h->stamp ? "MAP " : "PAM ", 1, 4, fp);
        else if (i == 53) {
            unsigned char machst[4] = {h->big_endian ? 0x11 : 0x44, h->big_endian ? 0x11 : 0x41, 0,
                                       0};
            fwrite(machst, 1, 4, fp);
        } else
            put32(fp, w[i]);
    char labels[800]; /* ten 80-character labels */
    memset(labels, ' ', sizeof labels);
    memcpy(labels, "a map made by hand", 18);
    fwrite(labels, 1, sizeof labels, fp);
    for (int i = 0; i < h->extended; i++)
        fputc('e', fp);
    const size_t total = (size_t)h->count[0] * h->count[1] * h->count[2];
    size_t written = 0;
    for (int s = 0; s < h->count[2]; s++)
        for (int r = 0; r < h->count[1]; r++)
            for (int c = 0; c < h->count[0]; c++)
                if (written++ < total - cut / 4)
                    put_real(fp, nan && s == 1 && r == 0 && c == 1 ? NAN : 100.0 * s + 10 * r + c,
                             4);
    fclose(fp);
}

static void test_mrc(void) {
    map_grid m, r;
    io_error err;
    int n[3] = {7, 9, 11};
    double c[3] = {-10.3, 4.7, 22.1};
    CHECK_OK(map_grid_alloc(&m, n, 2.5, c, &err), err);
    fill(&m);
    snprintf(m.title, sizeof m.title, "mrc test");
    CHECK_OK(map_write("t.mrc", MAP_MRC, &m, NULL, &err), err);

    /* The header's words as the format defines them; values x fastest after 1024 bytes. */
    FILE *fp = fopen("t.mrc", "rb");
    size_t points = 7 * 9 * 11, expect = 1024 + 4 * points;
    unsigned char *b = malloc(expect + 16);
    size_t got = fp ? fread(b, 1, expect + 16, fp) : 0;
    if (fp) fclose(fp);
    CHECK(got == expect);
    if (got == expect) {
        CHECK(le32(b) == 7 && le32(b + 4) == 9 && le32(b + 8) == 11 && le32(b + 12) == 2);
        /* starts: the first point in whole spacings, -28.75, 7.75, 50.25 rounded */
        CHECK((int32_t)le32(b + 16) == -29 && le32(b + 20) == 8 && le32(b + 24) == 50);
        CHECK(le32(b + 28) == 7 && le32(b + 32) == 9 && le32(b + 36) == 11);
        CHECK(le_f32(b + 40) == (float)(7 / 2.5) && le_f32(b + 48) == (float)(11 / 2.5));
        CHECK(le_f32(b + 52) == 90.0f && le_f32(b + 60) == 90.0f);
        CHECK(le32(b + 64) == 1 && le32(b + 68) == 2 && le32(b + 72) == 3);
        CHECK(le32(b + 88) == 1 && le32(b + 92) == 0 && le32(b + 108) == 20140);
        /* ORIGIN: the first point, centre - (n - 1) / 2 / scale. */
        CHECK(le_f32(b + 196) == (float)(c[0] - 3 / 2.5));
        CHECK(le_f32(b + 200) == (float)(c[1] - 4 / 2.5));
        CHECK(le_f32(b + 204) == (float)(c[2] - 5 / 2.5));
        CHECK(memcmp(b + 208, "MAP ", 4) == 0 && b[212] == 0x44 && b[213] == 0x44);
        CHECK(le32(b + 220) == 2 && memcmp(b + 304, "mrc test", 8) == 0);
        double lo = 1e300, hi = -1e300, sum = 0;
        for (size_t i = 0; i < points; i++) {
            lo = fmin(lo, m.values[i]), hi = fmax(hi, m.values[i]);
            sum += m.values[i];
        }
        CHECK(le_f32(b + 76) == (float)lo && le_f32(b + 80) == (float)hi);
        CHECK_NEAR(le_f32(b + 84), sum / points, 1e-6);
        CHECK(le_f32(b + 1024) == (float)sample(0, 0, 0));
        CHECK(le_f32(b + 1028) == (float)sample(1, 0, 0));
        CHECK(le_f32(b + 1024 + 4 * 7) == (float)sample(0, 1, 0));
    }
    free(b);
    int f = -2;
    CHECK_OK(map_detect_format("t.mrc", &f, &err), err);
    CHECK(f == MAP_MRC);
    CHECK_OK(map_read("t.mrc", -1, &r, &err), err);
    CHECK(r.n[0] == 7 && r.n[1] == 9 && r.n[2] == 11);
    CHECK_NEAR(r.scale, 2.5, 1e-6);
    for (int a = 0; a < 3; a++)
        CHECK_NEAR(r.center[a], c[a], 1e-5);
    CHECK(strcmp(r.title, "mrc test") == 0 && strcmp(r.kind, "potential") == 0);
    size_t mismatches = 0;
    for (size_t i = 0; i < points; i++)
        if (r.values[i] != (double)(float)m.values[i]) mismatches++;
    CHECK(mismatches == 0);
    map_grid_free(&r);
    map_grid_free(&m);

    /* Another program's file: big-endian, columns along z, rows along x, sections along y, an
       extended header, the position given by the starts (ORIGIN zero), spacing 0.5 A. */
    mrc_hand h = {.big_endian = 1,
                  .count = {4, 3, 2},
                  .start = {-2, 6, 1},
                  .intervals = {6, 4, 8},
                  .axes = {3, 1, 2},
                  .mode = 2,
                  .extended = 80,
                  .labels = 1,
                  .cell = {2.0f, 3.0f, 4.0f},
                  .angle = {90, 90, 90},
                  .stamp = 1};
    /* MX, MY, MZ and the cell are along x, y, z: 2/4, 3/6, 4/8 = 0.5 A. */
    h.intervals[0] = 4, h.intervals[1] = 6, h.intervals[2] = 8;
    write_mrc_by_hand("hand.mrc", &h, 0, 0);
    CHECK_OK(map_detect_format("hand.mrc", &f, &err), err);
    CHECK(f == MAP_MRC);
    CHECK_OK(map_read("hand.mrc", MAP_MRC, &r, &err), err);
    /* x has the rows (3), y the sections (2), z the columns (4). */
    CHECK(r.n[0] == 3 && r.n[1] == 2 && r.n[2] == 4 && r.scale == 2.0);
    /* First point: x = row start 6, y = section start 1, z = column start -2, times 0.5 A. */
    CHECK(r.center[0] == 3.0 + 0.5 && r.center[1] == 0.5 + 0.25 && r.center[2] == -1.0 + 0.75);
    /* v(column c, row r, section s) sits at x = r, y = s, z = c. */
    CHECK(r.values[2 + 3 * (1 + 2 * 3)] == 100.0 * 1 + 10 * 2 + 3);
    CHECK(r.values[1 + 3 * (0 + 2 * 2)] == 100.0 * 0 + 10 * 1 + 2);
    CHECK(strcmp(r.title, "a map made by hand") == 0);
    map_grid_free(&r);
    /* The same file with ORIGIN set: ORIGIN wins over the starts. */
    h.origin[0] = 1.5f, h.origin[1] = -2.0f, h.origin[2] = 7.0f;
    write_mrc_by_hand("origin.mrc", &h, 0, 0);
    CHECK_OK(map_read("origin.mrc", -1, &r, &err), err);
    CHECK(r.center[0] == 1.5 + 0.5 && r.center[1] == -2.0 + 0.25 && r.center[2] == 7.0 + 0.75);
    map_grid_free(&r);

    /* What the reader refuses, each with the file and the field named. */
    static const struct {
        const char *file, *part;
        int status;
    } cases[] = {
        {"mode0.mrc", "mode 0", IO_ERR_UNSUPPORTED},
        {"skew.mrc", "orthogonal", IO_ERR_UNSUPPORTED},
        {"aniso.mrc", "voxel sizes", IO_ERR_UNSUPPORTED},
        {"axes.mrc", "permutation", IO_ERR_INPUT},
        {"cut.mrc", "only", IO_ERR_INPUT},
        {"nan.mrc", "column 2, row 1, section 2 is not finite", IO_ERR_INPUT},
        {"nostamp.mrc", "not an MRC", IO_ERR_INPUT},
        {"minaxis.mrc", "-2147483648, 1, 2 are not a permutation", IO_ERR_INPUT},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mrc_hand e = h;
        e.big_endian = (int)(i % 2);
        size_t cut = 0;
        int nan = 0;
        if (i == 0) e.mode = 0;
        if (i == 1) e.angle[1] = 120.0f;
        if (i == 2) e.cell[2] = 5.0f;
        if (i == 3) e.axes[2] = 1;
        if (i == 4) cut = 8;
        if (i == 5) nan = 1;
        if (i == 6) e.stamp = 0;
        if (i == 7) e.axes[0] = INT32_MIN; /* found by the fuzzer: no overflow in its check */
        write_mrc_by_hand(cases[i].file, &e, cut, nan);
        int rc = map_read(cases[i].file, MAP_MRC, &r, &err);
        CHECK(rc == cases[i].status);
        CHECK_CONTAINS(err.message, cases[i].file);
        CHECK_CONTAINS(err.message, cases[i].part);
    }
}

/* DelPhi's compact dielectric map: the words of every row from the bytes (bit i % 16 of word
 * i / 16 for 1-based i, bit 15 counting -32768), the file's layout, the reader's round trip and
 * its refusals. */
static unsigned char eps_byte(int a, int i, int j, int k) {
    return (unsigned char)(((i * 7 + j * 3 + k * 5 + a) % 4 == 0) || (j == 1 && k == 2));
}

static void test_epsmap(void) {
    const int sizes[] = {3, 15, 17, 33};
    for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; ++t) {
        const int n = sizes[t], w = epsmap_words(n);
        CHECK(w == n / 16 + 1);
        const size_t pts = (size_t)n * n * n;
        unsigned char *bytes = malloc(4 * pts);
        CHECK(bytes != NULL);
        if (!bytes) return;
        for (int a = 0; a < 4; ++a)
            for (int k = 0; k < n; ++k)
                for (int j = 0; j < n; ++j)
                    for (int i = 0; i < n; ++i)
                        bytes[a * pts + i + (size_t)n * (j + (size_t)n * k)] = eps_byte(a, i, j, k);
        const epsilon_map m = {n, 2.5, {1.25, -3.0, 40.5}, bytes, bytes + 3 * pts};
        io_error err;
        CHECK_OK(epsmap_write("eps.bin", &m, &err), err);
        /* The layout: 3 records with their markers. */
        FILE *fp = fopen("eps.bin", "rb");
        CHECK(fp != NULL);
        if (fp) {
            fseek(fp, 0, SEEK_END);
            const long size = ftell(fp);
            CHECK(size == 28 + 8 + 12L * w * n * n + 8 + 4L * w * n * n);
            fseek(fp, 0, SEEK_SET);
            unsigned char head[28];
            CHECK(fread(head, 1, 28, fp) == 28);
            int32_t v[7];
            memcpy(v, head, sizeof v);
            CHECK(v[0] == 20 && v[1] == 1 && v[6] == 20);
            float f[4];
            memcpy(f, head + 8, sizeof f);
            CHECK(f[0] == 2.5f && f[1] == 1.25f && f[2] == -3.0f && f[3] == 40.5f);
            fclose(fp);
        }
        int rn = 0;
        double scale = 0.0, centre[3] = {0.0, 0.0, 0.0};
        int32_t *solute = NULL, *ions = NULL;
        CHECK_OK(epsmap_read("eps.bin", &rn, &scale, centre, &solute, &ions, &err), err);
        CHECK(rn == n && scale == 2.5 && centre[0] == 1.25 && centre[2] == 40.5);
        long wrong = 0, negative = 0, low_bit = 0;
        for (int a = 0; solute && ions && a < 4; ++a)
            for (int k = 0; k < n; ++k)
                for (int j = 0; j < n; ++j) {
                    const int32_t *row = (a < 3 ? solute + (size_t)a * n * n * w : ions) +
                                         (size_t)w * (j + (size_t)n * k);
                    for (int i = 1; i <= n; ++i)
                        wrong += (int)((uint32_t)row[i / 16] >> (i % 16) & 1u) !=
                                 eps_byte(a, i - 1, j, k);
                    for (int x = 0; x < w; ++x) {
                        /* Bit 15 set <=> negative, and then bits 16-31 are all set. */
                        const int bit15 = (int)((uint32_t)row[x] >> 15 & 1u);
                        negative += row[x] < 0;
                        wrong += bit15 != (row[x] < 0);
                        wrong += row[x] < 0 && ((uint32_t)row[x] >> 16) != 0xffffu;
                        wrong += row[x] >= 0 && ((uint32_t)row[x] >> 16) != 0u;
                    }
                    low_bit += row[0] & 1;
                }
        CHECK(wrong == 0);
        CHECK(low_bit == 0);
        CHECK((n >= 15) == (negative > 0));
        /* A row of all solute: bits 1..14 and -32768 in the first word. */
        if (n == 17 && solute) {
            const int32_t *row = solute + (size_t)w * (1 + (size_t)n * 2);
            CHECK(row[0] == 32766 - 32768 && row[1] == 1 + 2);
        }
        free(solute), free(ions);
        free(bytes);
    }
    /* Refused: a file that is not one, a truncated one. */
    FILE *fp = fopen("not_eps.bin", "wb");
    const unsigned char junk[12] = {4, 0, 0, 0, 1, 2, 3, 4, 4, 0, 0, 0};
    if (fp) fwrite(junk, 1, sizeof junk, fp), fclose(fp);
    int rn;
    double scale, centre[3];
    int32_t *solute, *ions;
    io_error err;
    CHECK(epsmap_read("not_eps.bin", &rn, &scale, centre, &solute, &ions, &err) != IO_OK);
    CHECK_CONTAINS(err.message, "not a DelPhi dielectric map");
    fp = fopen("eps.bin", "rb");
    unsigned char buf[200];
    const size_t got = fp ? fread(buf, 1, sizeof buf, fp) : 0;
    if (fp) fclose(fp);
    fp = fopen("short_eps.bin", "wb");
    if (fp) fwrite(buf, 1, got, fp), fclose(fp);
    CHECK(epsmap_read("short_eps.bin", &rn, &scale, centre, &solute, &ions, &err) != IO_OK);
    CHECK_CONTAINS(err.message, "truncated dielectric map");
    /* the first record's closing marker changed: its markers disagree */
    buf[24] ^= 1;
    fp = fopen("bad_marker_eps.bin", "wb");
    if (fp) fwrite(buf, 1, got, fp), fclose(fp);
    CHECK(epsmap_read("bad_marker_eps.bin", &rn, &scale, centre, &solute, &ions, &err) != IO_OK);
    CHECK_CONTAINS(err.message, "corrupt dielectric map: record 1 markers disagree");
    /* an empty file */
    fp = fopen("empty_eps.bin", "wb");
    if (fp) fclose(fp);
    CHECK(epsmap_read("empty_eps.bin", &rn, &scale, centre, &solute, &ions, &err) != IO_OK);
    CHECK_CONTAINS(err.message, "record 1 is missing");
}

int main(void) {
    test_enter_scratch("maps");
    test_coordinates();
    test_phimap();
    test_phimap_real8();
    test_dx_and_cube();
    test_text_map_errors();
    test_mrc();
    test_epsmap();
    return test_finish("host_io_maps");
}
