/* libFuzzer target: PDB files, plain (with fixed radius and charge tables) and DelPhi's own
 * "DELPHI PDB FILE" formats. */
#include "fuzz_common.h"
#include "io_molecule.h"

static const char siz[] =
    "atom__res_radius_\nN     ALA   1.65\nCA          1.87\nC           1.76\n"
    "O           1.40\n";
static const char crg[] = "atom__resnumbc_charge_\nN     ALA      -0.40\nCA              0.10\n"
                          "O               -0.50\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fuzz_file("in.pdb", data, size);
    const char *siz_path = fuzz_file("t.siz", (const uint8_t *)siz, sizeof siz - 1);
    const char *crg_path = fuzz_file("t.crg", (const uint8_t *)crg, sizeof crg - 1);
    molecule mol;
    io_notes notes;
    io_error err;
    io_notes_clear(&notes);
    io_error_clear(&err);
    int rc = molecule_read_pdb(path, siz_path, crg_path, &mol, &notes, &err);
    fuzz_expect_message(rc, &err);
    if (rc == IO_OK) molecule_free(&mol);
    io_error_clear(&err);
    rc = molecule_read_delphi_pdb(path, &mol, &notes, &err);
    fuzz_expect_message(rc, &err);
    if (rc == IO_OK) molecule_free(&mol);
    unlink(path), unlink(siz_path), unlink(crg_path);
    return 0;
}
