/* libFuzzer target: DelPhi radius (.siz) and charge (.crg) tables. */
#include "fuzz_common.h"
#include "io_molecule.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fuzz_file("in.tab", data, size);
    atom_table table;
    io_notes notes;
    io_error err;
    io_notes_clear(&notes);
    io_error_clear(&err);
    int rc = radius_table_read(path, &table, &notes, &err);
    fuzz_expect_message(rc, &err);
    if (rc == IO_OK) atom_table_free(&table);
    io_error_clear(&err);
    rc = charge_table_read(path, &table, &notes, &err);
    fuzz_expect_message(rc, &err);
    if (rc == IO_OK) atom_table_free(&table);
    unlink(path);
    return 0;
}
