/* host_io: the temporary files of atomic outputs, tracked so that nothing is left behind.
 *
 * Every atomic_file's temporary is registered while it exists.  A program can
 *  - stage its outputs: between temp_files_stage_begin() and temp_files_stage_end(), a
 *    committed atomic_file stays under its temporary name; stage_end(1) renames them all onto
 *    their final names, stage_end(0) removes them (a failed run leaves no output);
 *  - install signal handlers (temp_files_install_signal_cleanup) that remove every registered
 *    temporary on SIGINT, SIGTERM, SIGHUP, SIGQUIT and on a crash (SIGSEGV, SIGBUS, SIGFPE,
 *    SIGILL, SIGABRT), then let the signal take its default course. */
#ifndef HOST_IO_TEMP_FILES_H
#define HOST_IO_TEMP_FILES_H

#include "io_common.h"

/** Register a temporary file (and the final name it is meant for).  Returns IO_OK, or
 *  IO_ERR_MEMORY when too many temporaries exist at once (err filled). */
int temp_files_add(const char *temp_path, const char *final_path, io_error *err);
/** Forget a temporary (after it was renamed or removed). */
void temp_files_forget(const char *temp_path);

/** 1 while outputs are being staged (commit keeps the temporary). */
int temp_files_staging(void);
/** Start staging committed outputs. */
void temp_files_stage_begin(void);
/** Keep a temporary out of the stages (a batch's --jsonl, open across its runs' stages): only
 *  its own commit or abort, or a signal, ends it. */
void temp_files_hold(const char *temp_path);
/** Mark a committed temporary as finished (renamed at stage_end(1)). */
void temp_files_stage_done(const char *temp_path);
/** End staging: keep = 1 renames every finished temporary onto its final name (the first
 *  failure is returned, err filled, and the remaining temporaries are removed); keep = 0
 *  removes them all. */
int temp_files_stage_end(int keep, io_error *err);

/** Remove every registered temporary now (async-signal-safe). */
void temp_files_remove_all(void);
/** Install the signal handlers described above (once; later calls do nothing). */
void temp_files_install_signal_cleanup(void);

#endif /* HOST_IO_TEMP_FILES_H */
