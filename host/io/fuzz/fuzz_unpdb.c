/* libFuzzer target: DelPhi's unformatted PDB file (formats 0 and 1, either byte order), read
 * directly, through the detection that molecule_load, the site list and the model count use,
 * and, when it reads, written back by unpdb_write and read again to the same atoms. */
#include "fuzz_common.h"
#include "io_molecule.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fuzz_file("in.unpdb", data, size);
    molecule mol;
    io_notes notes;
    io_error err;
    io_notes_clear(&notes);
    io_error_clear(&err);
    int is_unformatted = -1;
    if (unpdb_detect(path, &is_unformatted, &err) != IO_OK || is_unformatted < 0) abort();
    int rc = molecule_read_unpdb(path, &mol, &notes, &err);
    fuzz_expect_message(rc, &err);
    if (rc == IO_OK && !is_unformatted) abort(); /* every file it reads starts with a record */
    if (rc == IO_OK) {
        /* Out as format 0 with 4-byte reals, back in: the same count, the values rounded. */
        const char *copy = fuzz_file("copy.unpdb", NULL, 0);
        io_error_clear(&err);
        if (unpdb_write(copy, &mol, &err) != IO_OK) abort();
        molecule back;
        if (molecule_read_unpdb(copy, &back, &notes, &err) != IO_OK) abort();
        if (back.count != mol.count) abort();
        for (size_t i = 0; i < mol.count; i++)
            if (back.atoms[i].x != (double)(float)mol.atoms[i].x ||
                back.atoms[i].charge != (double)(float)mol.atoms[i].charge)
                abort();
        molecule_free(&back);
        molecule_free(&mol);
        unlink(copy);
    }
    io_error_clear(&err);
    rc = molecule_read_sites(path, &mol, &notes, &err);
    fuzz_expect_message(rc, &err);
    if (rc == IO_OK) molecule_free(&mol);
    int models = 0;
    io_error_clear(&err);
    rc = molecule_count_models(path, &models, &err);
    fuzz_expect_message(rc, &err);
    if (rc == IO_OK && is_unformatted && models != 1) abort();
    unlink(path);
    return 0;
}
