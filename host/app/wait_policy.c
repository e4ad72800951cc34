/* The program's OpenMP wait policy, for the log (wait_policy.h). */
#define _POSIX_C_SOURCE 200809L
#include "wait_policy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delphi_gpu_start.h"

/* Defined only where libdelphi_gpu_start.a is linked in (the program, not the tests that link
   the pipeline). */
extern const char *dg_wait_start_choice(void) __attribute__((weak));

static const char *const user_choices[] = {"OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KMP_BLOCKTIME"};

/* "passive R L" or "spin R L[ (why)]" as the start library writes it. */
static const char *describe_choice(const char *chosen, char *buf, unsigned long size) {
    char how[16] = "";
    int running = -1, used = 0;
    double load = -1.0;
    if (sscanf(chosen, "%15s %d %lf%n", how, &running, &load, &used) < 1) return NULL;
    const int passive = strcmp(how, "passive") == 0;
    const char *rest = used > 0 ? chosen + used : "";
    if (running < 0)
        snprintf(buf, size, "%s (the program's choice; the machine's load unknown)%s",
                 passive ? "passive" : "spinning", rest);
    else
        snprintf(buf, size,
                 "%s (the program's choice: %d runnable task%s, load %.2f; "
                 "OMP_WAIT_POLICY=active or passive decides)%s",
                 passive ? "passive" : "spinning", running, running == 1 ? "" : "s", load, rest);
    return buf;
}

const char *app_wait_policy_description(char *buf, unsigned long size) {
    const char *chosen = getenv(DG_WAIT_CHOSEN_VARIABLE);
    if (chosen) return describe_choice(chosen, buf, size);
    for (size_t i = 0; i < sizeof user_choices / sizeof user_choices[0]; ++i) {
        const char *v = getenv(user_choices[i]);
        if (v) {
            snprintf(buf, size, "%s=%s (the environment's)", user_choices[i], v);
            return buf;
        }
    }
    const char *spin = dg_wait_start_choice ? dg_wait_start_choice() : NULL;
    return spin ? describe_choice(spin, buf, size) : NULL;
}
