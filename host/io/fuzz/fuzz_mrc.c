/* libFuzzer target: the MRC/CCP4 map reader (and format detection through map_read). */
#include "fuzz_map.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    return fuzz_map_input("in.mrc", mrc_read, data, size);
}
