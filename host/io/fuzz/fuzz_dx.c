/* libFuzzer target: the dx map reader (and format detection through map_read). */
#include "fuzz_map.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    return fuzz_map_input("in.dx", dx_read, data, size);
}
