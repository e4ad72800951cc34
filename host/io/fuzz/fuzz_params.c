/* libFuzzer target: DelPhi parameter files (statements and functions). */
#include "fuzz_common.h"
#include "io_settings.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fuzz_file("in.prm", data, size);
    static run_settings s;
    io_notes notes;
    io_error err;
    settings_defaults(&s);
    io_notes_clear(&notes);
    io_error_clear(&err);
    const int rc = settings_parse_file(&s, path, &notes, &err);
    fuzz_expect_message(rc, &err);
    unlink(path);
    return 0;
}
