/* The early backend notice (see backend_notice.h). */
#include "backend_notice.h"

#include <stdio.h>
#include <string.h>

#include "delphi_gpu/delphi_gpu.h"

void backend_notice_early(io_log *log, const run_settings *s, char *said, size_t size) {
    if (size) said[0] = '\0';
    if (s->backend != DG_BACKEND_AUTO) return;
    int count = 0;
    if (dg_cuda_device_count(&count) == DG_OK && count > 0) return; /* the GPU will be used */
    /* A handle with AUTO finds the reason the library gives and starts on the CPU (cheap). */
    dg_options o;
    dg_default_options(&o);
    o.num_threads = 1;
    dg_solver probe = NULL;
    if (dg_create(&probe, &o) == DG_OK) {
        const char *text = dg_notice(probe);
        if (text && text[0]) {
            snprintf(said, size, "%s", text);
            log_notice(log, "%s", said);
        }
    }
    dg_destroy(probe);
}

void backend_notice_drop(char *notices, const char *said) {
    if (!said || !said[0]) return;
    const size_t n = strlen(said);
    char *at = strstr(notices, said);
    if (!at) return;
    char *end = at + n;
    if (*end == '\n')
        ++end;
    else if (at > notices && at[-1] == '\n')
        --at;
    memmove(at, end, strlen(end) + 1);
}
