/* DelPhi's unformatted PDB file: format 0 (4- and 8-byte reals), format 1 (header, atom
 * descriptors), big-endian records, unpdb_write round trip, detection (never a text file), every
 * error with the record it names, and molecule_load / sites / model count on such a file. */
#include "test_util.h"

#include <errno.h>
#include <stdint.h>

#include "host_io.h"

static int notes_contain(const io_notes *notes, const char *part) {
    for (int i = 0; i < notes->count; i++)
        if (strstr(notes->text[i], part)) return 1;
    return 0;
}

/* ---- Writing Fortran unformatted records -----------------------------------------------------
 * A record is built in a buffer (reals and integers in the file's byte order), then written
 * between its two length markers. */
typedef struct record {
    unsigned char bytes[128];
    size_t len;
    int big; /* big-endian */
} record;

static void put_bytes(record *r, const void *v, size_t n) {
    const unsigned char *p = v;
    for (size_t i = 0; i < n; i++) /* the host is little-endian; reverse for big-endian */
        r->bytes[r->len + i] = r->big ? p[n - 1 - i] : p[i];
    r->len += n;
}

static void put_u32(record *r, uint32_t v) {
    put_bytes(r, &v, 4);
}

static void put_real(record *r, double v, int real_size) {
    if (real_size == 4) {
        const float f = (float)v;
        put_bytes(r, &f, 4);
    } else {
        put_bytes(r, &v, 8);
    }
}

static void put_text(record *r, const char *text, size_t n) {
    memset(r->bytes + r->len, ' ', n);
    memcpy(r->bytes + r->len, text, strlen(text) < n ? strlen(text) : n);
    r->len += n;
}

/* Write a record: marker, body, marker (closing: the marker written after it; usually len). */
static void write_record(FILE *fp, const record *r, uint32_t closing) {
    record m = {.big = r->big};
    put_u32(&m, (uint32_t)r->len);
    fwrite(m.bytes, 1, 4, fp);
    fwrite(r->bytes, 1, r->len, fp);
    m.len = 0;
    put_u32(&m, closing);
    fwrite(m.bytes, 1, 4, fp);
}

typedef struct test_atom {
    const char *descriptor; /* 15 characters (format 1) */
    double x, y, z, radius, charge;
} test_atom;

static const test_atom atoms3[3] = {{" N    MET A   1", 27.340, 24.430, 2.614, 1.824, 0.1592},
                                    {" CA   MET A   1", -26.266, 25.413, 2.842, 1.908, -0.0221},
                                    {" OW   HOH B1000", 1.5e1, -0.5, 1000.0, 1.7683, -0.834}};

static record atom_record(const test_atom *a, int descriptor, int real_size, int big) {
    record r = {.big = big};
    if (descriptor) put_text(&r, a->descriptor, 15);
    put_real(&r, a->x, real_size);
    put_real(&r, a->y, real_size);
    put_real(&r, a->z, real_size);
    put_real(&r, a->radius, real_size);
    put_real(&r, a->charge, real_size);
    return r;
}

static FILE *open_out(const char *path) {
    FILE *fp = fopen(path, "wb");
    if (!fp) {
        perror(path);
        exit(2);
    }
    return fp;
}

/* Format 0: n atoms of atoms3 (cycled). */
static void write_format0(const char *path, int n, int real_size, int big) {
    FILE *fp = open_out(path);
    for (int i = 0; i < n; i++) {
        record r = atom_record(&atoms3[i % 3], 0, real_size, big);
        write_record(fp, &r, (uint32_t)r.len);
    }
    fclose(fp);
}

/* Format 1: header, format number, the count given, then n atoms. */
static void write_format1(const char *path, const char *title, int32_t format, int32_t count, int n,
                          int real_size, int big) {
    FILE *fp = open_out(path);
    record r = {.big = big};
    put_text(&r, title, 80);
    write_record(fp, &r, 80);
    r.len = 0;
    put_u32(&r, (uint32_t)format);
    write_record(fp, &r, 4);
    r.len = 0;
    put_u32(&r, (uint32_t)count);
    write_record(fp, &r, 4);
    for (int i = 0; i < n; i++) {
        r = atom_record(&atoms3[i % 3], 1, real_size, big);
        write_record(fp, &r, (uint32_t)r.len);
    }
    fclose(fp);
}

static void append_bytes(const char *path, const void *bytes, size_t n) {
    FILE *fp = fopen(path, "ab");
    if (!fp) exit(2);
    fwrite(bytes, 1, n, fp);
    fclose(fp);
}

static int detected(const char *path) {
    int is = -1;
    io_error err;
    int rc = unpdb_detect(path, &is, &err);
    CHECK_OK(rc, err);
    return is;
}

/* The atoms of atoms3 read back: values to real_size precision; names from descriptors. */
static void check_atoms(const molecule *mol, int n, int real_size, int named, int first_record) {
    CHECK(mol->count == (size_t)n, "%zu atoms, expected %d", mol->count, n);
    if (mol->count != (size_t)n) return;
    for (int i = 0; i < n; i++) {
        const atom *a = &mol->atoms[i];
        const test_atom *t = &atoms3[i % 3];
        if (real_size == 4) {
            CHECK(a->x == (double)(float)t->x && a->y == (double)(float)t->y);
            CHECK(a->z == (double)(float)t->z && a->radius == (double)(float)t->radius);
            CHECK(a->charge == (double)(float)t->charge);
        } else {
            CHECK(a->x == t->x && a->y == t->y && a->z == t->z);
            CHECK(a->radius == t->radius && a->charge == t->charge);
        }
        CHECK(strcmp(a->record, "ATOM") == 0 && a->serial == i + 1);
        CHECK(a->source_line == first_record + i, "atom %d: record %d", i, a->source_line);
        CHECK(a->insertion == ' ');
        if (!named) {
            CHECK(a->name[0] == '\0' && a->residue[0] == '\0' && a->chain == ' ');
            CHECK(a->residue_number == 0);
        }
    }
    if (named) {
        const atom *a = mol->atoms;
        CHECK(strcmp(a[0].name, "N") == 0 && strcmp(a[0].residue, "MET") == 0);
        CHECK(a[0].chain == 'A' && a[0].residue_number == 1);
        CHECK(strcmp(a[1].name, "CA") == 0 && a[1].residue_number == 1);
        CHECK(strcmp(a[2].name, "OW") == 0 && strcmp(a[2].residue, "HOH") == 0);
        CHECK(a[2].chain == 'B' && a[2].residue_number == 1000);
    }
}

static void test_formats(void) {
    static const struct {
        const char *file;
        int format, real_size, big;
    } cases[] = {{"f0_r4.unpdb", 0, 4, 0},    {"f0_r8.unpdb", 0, 8, 0}, {"f0_r4_be.unpdb", 0, 4, 1},
                 {"f0_r8_be.unpdb", 0, 8, 1}, {"f1_r4.unpdb", 1, 4, 0}, {"f1_r8.unpdb", 1, 8, 0},
                 {"f1_r4_be.unpdb", 1, 4, 1}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const int n = 7;
        if (cases[c].format == 0)
            write_format0(cases[c].file, n, cases[c].real_size, cases[c].big);
        else
            write_format1(cases[c].file, " DELPHI PDB FILE (unformatted)", 1, n, n,
                          cases[c].real_size, cases[c].big);
        CHECK(detected(cases[c].file) == 1, "%s not detected", cases[c].file);
        molecule mol;
        io_error err;
        int rc = molecule_read_unpdb(cases[c].file, &mol, NULL, &err);
        CHECK_OK(rc, err);
        check_atoms(&mol, n, cases[c].real_size, cases[c].format == 1,
                    cases[c].format == 1 ? 4 : 1);
        CHECK(strcmp(mol.source, cases[c].file) == 0);
        molecule_free(&mol);
    }
    /* A descriptor with blank fields and stray bytes: blanks stay blank, nothing breaks. */
    FILE *fp = open_out("f1_odd.unpdb");
    record r = {.big = 0};
    put_text(&r, "delphi pdb", 80);
    write_record(fp, &r, 80);
    r.len = 0;
    put_u32(&r, 1);
    write_record(fp, &r, 4);
    r.len = 0;
    put_u32(&r, 2);
    write_record(fp, &r, 4);
    r = atom_record(&atoms3[0], 1, 4, 0);
    memcpy(r.bytes, "               ", 15); /* all blank */
    write_record(fp, &r, 35);
    r = atom_record(&atoms3[1], 1, 4, 0);
    memcpy(r.bytes, "HD21\0 ASN\x01Z  x9", 15); /* NUL, a control byte, a bad number */
    write_record(fp, &r, 35);
    fclose(fp);
    molecule mol;
    io_error err;
    int rc = molecule_read_unpdb("f1_odd.unpdb", &mol, NULL, &err);
    CHECK_OK(rc, err);
    CHECK(mol.count == 2);
    if (mol.count == 2) {
        CHECK(mol.atoms[0].name[0] == '\0' && mol.atoms[0].residue[0] == '\0');
        CHECK(mol.atoms[0].chain == ' ' && mol.atoms[0].residue_number == 0);
        CHECK(strcmp(mol.atoms[1].name, "HD21") == 0 && strcmp(mol.atoms[1].residue, "ASN") == 0);
        CHECK(mol.atoms[1].chain == 'Z' && mol.atoms[1].residue_number == 0);
    }
    molecule_free(&mol);
}

static void test_round_trip(void) {
    molecule mol;
    io_error err;
    int rc = molecule_read_pqr(HOST_IO_TEST_DATA "/1ubq.pqr", &mol, NULL, &err);
    CHECK_OK(rc, err);
    rc = unpdb_write("ubq.unpdb", &mol, &err);
    CHECK_OK(rc, err);
    CHECK(count_names_containing(".", ".tmp-") == 0);
    CHECK(detected("ubq.unpdb") == 1);
    molecule back;
    rc = molecule_read_unpdb("ubq.unpdb", &back, NULL, &err);
    CHECK_OK(rc, err);
    CHECK(back.count == mol.count);
    int same = back.count == mol.count;
    for (size_t i = 0; same && i < mol.count; i++) {
        const atom *a = &mol.atoms[i], *b = &back.atoms[i];
        same = b->x == (double)(float)a->x && b->y == (double)(float)a->y &&
               b->z == (double)(float)a->z && b->radius == (double)(float)a->radius &&
               b->charge == (double)(float)a->charge && b->source_line == (int)i + 1 &&
               b->serial == (int)i + 1;
        CHECK(same, "atom %zu differs", i);
    }
    CHECK_NEAR(molecule_net_charge(&back), molecule_net_charge(&mol), 1e-4);
    molecule_free(&back);
    /* 1231 records of 28 bytes: 4-byte reals, little-endian markers of 20 */
    char *bytes = read_text("ubq.unpdb");
    CHECK(bytes && bytes[0] == 20 && bytes[1] == 0 && bytes[24] == 20);
    free(bytes);
    struct stat st;
    CHECK(stat("ubq.unpdb", &st) == 0 && st.st_size == 1231 * 28);

    /* Failures leave nothing behind. */
    molecule empty = {0};
    rc = unpdb_write("empty.unpdb", &empty, &err);
    CHECK(rc == IO_ERR_INPUT && !file_exists("empty.unpdb"));
    CHECK_CONTAINS(err.message, "no atoms");
    mol.atoms[5].y = 1e300; /* no 4-byte real */
    rc = unpdb_write("big.unpdb", &mol, &err);
    CHECK(rc == IO_ERR_INPUT && !file_exists("big.unpdb"));
    CHECK_CONTAINS(err.message, "atom 6");
    mol.atoms[5].y = 0.0;
    rc = unpdb_write("no_such_dir/x.unpdb", &mol, &err);
    CHECK(rc == IO_ERR_FILE && !file_exists("no_such_dir"));
    CHECK(count_names_containing(".", ".tmp-") == 0);
    molecule_free(&mol);
}

/* The regular files of a directory of the repository checked as not unformatted; their count. */
static int check_text_files(const char *dir) {
    DIR *d = opendir(dir);
    int files = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
        files++;
        CHECK(detected(path) == 0, "%s detected as unformatted", path);
    }
    if (d) closedir(d);
    return files;
}

static void test_detection(void) {
    /* No text file is unformatted: the test data, the examples, the PDB and PQR seeds of the
       fuzz targets (plain and DelPhi PDB), an empty file. */
    CHECK(check_text_files(HOST_IO_TEST_DATA) >= 1);
    CHECK(check_text_files(HOST_IO_TEST_DATA "/../../../../examples/1ubq") >= 1);
    CHECK(check_text_files(HOST_IO_TEST_DATA "/../../../../examples/born") >= 1);
    CHECK(check_text_files(HOST_IO_TEST_DATA "/../../fuzz/corpus/pdb") >= 3);
    CHECK(check_text_files(HOST_IO_TEST_DATA "/../../fuzz/corpus/pqr") >= 1);
    CHECK(detected(HOST_IO_TEST_DATA "/../../../../examples/1ubq/1ubq.pqr") == 0);
    write_text("empty.pdb", "");
    CHECK(detected("empty.pdb") == 0);
    write_text("t.pdb", "ATOM      1  N   MET A   1      27.340  24.430   2.614  1.00  0.00\n");
    CHECK(detected("t.pdb") == 0);
    write_text("d.pdb", "DELPHI PDB FILE\nFORMAT = 1\n");
    CHECK(detected("d.pdb") == 0);
    /* A marker of 20 without its closing marker, or closing marker wrong: not detected. */
    write_format0("short.bin", 1, 4, 0);
    if (truncate("short.bin", 26) != 0) CHECK(0, "truncate: %s", strerror(errno));
    CHECK(detected("short.bin") == 0);
    FILE *fp = open_out("odd.bin");
    record r = atom_record(&atoms3[0], 0, 4, 0);
    write_record(fp, &r, 21);
    fclose(fp);
    CHECK(detected("odd.bin") == 0);
    int is = 1;
    io_error err;
    CHECK(unpdb_detect("missing.unpdb", &is, &err) == IO_ERR_FILE && is == 0);
    CHECK_CONTAINS(err.message, "missing.unpdb");
}

/* An error naming the file and the record (as "file:record:" and "record N"). */
static void expect_error(const char *path, int number, const char *part) {
    molecule mol;
    io_error err;
    io_error_clear(&err);
    int rc = molecule_read_unpdb(path, &mol, NULL, &err);
    CHECK_ERROR_AT(rc, err, path, number);
    if (rc == IO_OK) molecule_free(&mol);
    CHECK(mol.atoms == NULL && mol.count == 0);
    char rec[32];
    snprintf(rec, sizeof rec, "record %d", number);
    if (rc != IO_OK) {
        CHECK_CONTAINS(err.message, rec);
        CHECK_CONTAINS(err.message, part);
    }
}

static void test_errors(void) {
    /* Format 0 */
    write_format0("e_trunc.unpdb", 3, 4, 0);
    if (truncate("e_trunc.unpdb", 28 + 4 + 10) != 0) CHECK(0, "truncate");
    expect_error("e_trunc.unpdb", 2, "truncated");
    write_format0("e_marker.unpdb", 2, 4, 0);
    append_bytes("e_marker.unpdb", "\x14\x00", 2);
    expect_error("e_marker.unpdb", 3, "truncated");
    write_format0("e_close.unpdb", 2, 4, 0);
    if (truncate("e_close.unpdb", 28 + 4 + 20 + 1) != 0) CHECK(0, "truncate");
    expect_error("e_close.unpdb", 2, "closing length marker");

    FILE *fp = open_out("e_disagree.unpdb");
    record r = atom_record(&atoms3[0], 0, 4, 0);
    write_record(fp, &r, 20);
    write_record(fp, &r, 21);
    fclose(fp);
    expect_error("e_disagree.unpdb", 2, "length markers disagree");

    fp = open_out("e_length.unpdb");
    write_record(fp, &r, 20);
    write_record(fp, &r, 20);
    r = atom_record(&atoms3[1], 0, 8, 0);
    write_record(fp, &r, 40);
    fclose(fp);
    expect_error("e_length.unpdb", 3, "a record of 40 bytes");

    fp = open_out("e_nan.unpdb");
    r = atom_record(&atoms3[0], 0, 8, 1);
    write_record(fp, &r, 40);
    test_atom bad = atoms3[1];
    bad.y = NAN;
    r = atom_record(&bad, 0, 8, 1);
    write_record(fp, &r, 40);
    fclose(fp);
    expect_error("e_nan.unpdb", 2, "y is not a finite number");
    fp = open_out("e_inf.unpdb");
    bad = atoms3[1];
    bad.charge = INFINITY;
    r = atom_record(&bad, 0, 4, 0);
    write_record(fp, &r, 20);
    fclose(fp);
    expect_error("e_inf.unpdb", 1, "charge is not a finite number");

    /* molecule_check's limits, with the record named */
    fp = open_out("e_radius.unpdb");
    r = atom_record(&atoms3[0], 0, 4, 0);
    write_record(fp, &r, 20);
    write_record(fp, &r, 20);
    bad = atoms3[2];
    bad.radius = 20.0;
    r = atom_record(&bad, 0, 4, 0);
    write_record(fp, &r, 20);
    fclose(fp);
    expect_error("e_radius.unpdb", 3, "radius is out of range");
    write_format1("e_charge.unpdb", "DELPHI PDB", 1, 2, 1, 8, 0);
    fp = fopen("e_charge.unpdb", "ab");
    bad = atoms3[1];
    bad.charge = -11.0;
    r = atom_record(&bad, 1, 8, 0);
    write_record(fp, &r, 55);
    fclose(fp);
    expect_error("e_charge.unpdb", 5, "charge is out of range");
    fp = open_out("e_coord.unpdb");
    bad = atoms3[1];
    bad.z = -2e5;
    r = atom_record(&bad, 0, 4, 1);
    write_record(fp, &r, 20);
    fclose(fp);
    expect_error("e_coord.unpdb", 1, "z coordinate is absurd");

    write_text("e_empty.unpdb", "");
    expect_error("e_empty.unpdb", 1, "empty");
    expect_error(HOST_IO_TEST_DATA "/1ubq.pqr", 1, "not DelPhi's unformatted PDB file");
    fp = open_out("e_zero.unpdb");
    r.len = 0;
    write_record(fp, &r, 0);
    fclose(fp);
    expect_error("e_zero.unpdb", 1, "not DelPhi's unformatted PDB file");

    /* Too many atoms for memory: a (sparse) file longer than INT_MAX atom records. */
    write_format0("e_huge.unpdb", 1, 4, 0);
    if (truncate("e_huge.unpdb", (off_t)1 << 36) == 0) {
        expect_error("e_huge.unpdb", 1, "too many atoms for memory");
        unlink("e_huge.unpdb");
    } else {
        fprintf(stderr, "note: no sparse 64 GiB file here (%s); memory limit not checked\n",
                strerror(errno));
        unlink("e_huge.unpdb");
    }

    /* Format 1 */
    write_format1("e_count0.unpdb", "DELPHI PDB", 1, 0, 0, 4, 0);
    expect_error("e_count0.unpdb", 3, "no atoms");
    write_format1("e_countneg.unpdb", "DELPHI PDB", 1, -5, 0, 4, 0);
    expect_error("e_countneg.unpdb", 3, "no atoms");
    write_format1("e_fewer.unpdb", "DELPHI PDB", 1, 5, 3, 4, 0);
    expect_error("e_fewer.unpdb", 3, "the atom count is 5, but the file holds 3 atom records");
    write_format1("e_more.unpdb", "DELPHI PDB", 1, 2, 3, 8, 1);
    expect_error("e_more.unpdb", 6, "more atom records than the atom count of record 3");
    write_format1("e_noatoms.unpdb", "DELPHI PDB", 1, 2, 0, 4, 0);
    expect_error("e_noatoms.unpdb", 4, "missing");
    write_format1("e_format.unpdb", "DELPHI PDB", 2, 3, 3, 4, 0);
    expect_error("e_format.unpdb", 2, "format 2 is not known");
    write_format1("e_title.unpdb", "MCCE STRUCTURE", 1, 3, 3, 4, 0);
    expect_error("e_title.unpdb", 1, "'DELPHI' and 'PDB'");
    write_format1("e_header.unpdb", "DELPHI PDB", 1, 3, 3, 4, 0);
    if (truncate("e_header.unpdb", 88 + 12) != 0) CHECK(0, "truncate");
    expect_error("e_header.unpdb", 3, "missing");
    if (truncate("e_header.unpdb", 88) != 0) CHECK(0, "truncate");
    expect_error("e_header.unpdb", 2, "missing");
    /* An atom record of 20 bytes in format 1 (no descriptor) */
    write_format1("e_f1len.unpdb", "DELPHI PDB", 1, 1, 0, 4, 0);
    fp = fopen("e_f1len.unpdb", "ab");
    r = atom_record(&atoms3[0], 0, 4, 0);
    write_record(fp, &r, 20);
    fclose(fp);
    expect_error("e_f1len.unpdb", 4, "a record of 20 bytes");
    /* An atom record of another real size after the first */
    write_format1("e_f1mix.unpdb", "DELPHI PDB", 1, 2, 1, 4, 0);
    fp = fopen("e_f1mix.unpdb", "ab");
    r = atom_record(&atoms3[1], 1, 8, 0);
    write_record(fp, &r, 55);
    fclose(fp);
    expect_error("e_f1mix.unpdb", 5, "a record of 55 bytes");
    {
        molecule mol;
        io_error err;
        int rc = molecule_read_unpdb("missing.unpdb", &mol, NULL, &err);
        CHECK(rc == IO_ERR_FILE);
        CHECK_CONTAINS(err.message, "missing.unpdb");
    }
}

/* molecule_load, sites and the model count take the unformatted file as it is. */
static void test_load(void) {
    write_format0("fort.13", 3, 4, 0);
    run_settings s;
    io_notes notes;
    io_error err;
    settings_defaults(&s);
    io_notes_clear(&notes);
    snprintf(s.pdb_file, sizeof s.pdb_file, "fort.13");
    snprintf(s.siz_file, sizeof s.siz_file, "missing.siz");
    snprintf(s.crg_file, sizeof s.crg_file, "missing.crg");
    s.input_source[INPUT_SIZ] = s.input_source[INPUT_CRG] = SOURCE_DEFAULT;
    molecule mol;
    int rc = molecule_load(&s, &mol, &notes, &err);
    CHECK_OK(rc, err);
    check_atoms(&mol, 3, 4, 0, 1);
    CHECK(notes_contain(&notes, "unformatted PDB file"));
    CHECK(notes_contain(&notes, "no radius or charge file is needed"));
    molecule_free(&mol);

    /* Format 1: its header names DELPHI PDB, but it is not read as a text DelPhi PDB file. */
    write_format1("f1.bin", " DELPHI PDB FILE", 1, 3, 3, 8, 1);
    snprintf(s.pdb_file, sizeof s.pdb_file, "f1.bin");
    s.input_source[INPUT_SIZ] = SOURCE_FILE;
    io_notes_clear(&notes);
    rc = molecule_load(&s, &mol, &notes, &err);
    CHECK_OK(rc, err);
    check_atoms(&mol, 3, 8, 1, 4);
    CHECK(notes_contain(&notes, "the radius and charge files given are not read"));
    molecule_free(&mol);
    write_format1("bad.bin", " DELPHI PDB FILE", 1, 4, 3, 4, 0);
    snprintf(s.pdb_file, sizeof s.pdb_file, "bad.bin");
    rc = molecule_load(&s, &mol, &notes, &err);
    CHECK_ERROR_AT(rc, err, "bad.bin", 3);

    rc = molecule_read_sites("f1.bin", &mol, &notes, &err);
    CHECK_OK(rc, err);
    check_atoms(&mol, 3, 8, 1, 4);
    molecule_free(&mol);
    rc = molecule_read_sites("fort.13", &mol, &notes, &err);
    CHECK_OK(rc, err);
    CHECK(mol.count == 3 && mol.atoms[2].radius == (double)(float)1.7683);
    molecule_free(&mol);

    int models = -1;
    rc = molecule_count_models("f1.bin", &models, &err);
    CHECK_OK(rc, err);
    CHECK(models == 1);
    rc = molecule_count_models("fort.13", &models, &err);
    CHECK_OK(rc, err);
    CHECK(models == 1);
}

int main(void) {
    test_enter_scratch("unpdb");
    test_formats();
    test_round_trip();
    test_detection();
    test_errors();
    test_load();
    return test_finish("host_io_unpdb");
}
