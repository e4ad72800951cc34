/* The backend notice of an AUTO run, said once and before the solve's progress lines. */
#ifndef HOST_BACKEND_NOTICE_H
#define HOST_BACKEND_NOTICE_H

#include <stddef.h>

#include "io_log.h"
#include "settings.h"

/** With --backend auto and no usable GPU, log "notice: no usable GPU (reason); using the CPU
 *  backend" now and copy the library's notice into said (else said = "").  Asks the library
 *  (dg_cuda_device_count, then a CPU-only probe handle for the reason); never fails. */
void backend_notice_early(io_log *log, const run_settings *s, char *said, size_t size);

/** Remove the line `said` from a block of notice lines (it was already printed). */
void backend_notice_drop(char *notices, const char *said);

#endif /* HOST_BACKEND_NOTICE_H */
