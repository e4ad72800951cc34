/* libFuzzer target: the PQR reader (and the site-list reader on the same bytes). */
#include "fuzz_common.h"
#include "io_molecule.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fuzz_file("in.pqr", data, size);
    molecule mol;
    io_notes notes;
    io_error err;
    io_notes_clear(&notes);
    io_error_clear(&err);
    int rc = molecule_read_pqr(path, &mol, &notes, &err);
    fuzz_expect_message(rc, &err);
    if (rc == IO_OK) molecule_free(&mol);
    io_error_clear(&err);
    rc = molecule_read_sites(path, &mol, &notes, &err);
    fuzz_expect_message(rc, &err);
    if (rc == IO_OK) molecule_free(&mol);
    unlink(path);
    return 0;
}
