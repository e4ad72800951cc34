/* Path identities and output checks (see path_identity.h). */
#define _XOPEN_SOURCE 700

#include "path_identity.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Split path into its directory ("." when none) and its last name. */
static void split(const char *path, char *dir, size_t dir_size, const char **base) {
    const char *slash = strrchr(path, '/');
    if (!slash) {
        snprintf(dir, dir_size, ".");
        *base = path;
    } else if (slash == path) {
        snprintf(dir, dir_size, "/");
        *base = slash + 1;
    } else {
        snprintf(dir, dir_size, "%.*s", (int)(slash - path), path);
        *base = slash + 1;
    }
}

void path_identity_of(const char *path, path_identity *id) {
    memset(id, 0, sizeof *id);
    if (!path || !path[0]) return;
    struct stat st;
    if (stat(path, &st) == 0) {
        id->exists = 1;
        id->device = st.st_dev;
        id->inode = st.st_ino;
    }
    char resolved[PATH_MAX > 4096 ? PATH_MAX : 4096];
    if (realpath(path, resolved)) {
        snprintf(id->canonical, sizeof id->canonical, "%s", resolved);
        return;
    }
    char dir[SETTINGS_PATH_MAX];
    const char *base = NULL;
    split(path, dir, sizeof dir, &base);
    if (!realpath(dir, resolved)) return;
    snprintf(id->canonical, sizeof id->canonical, "%s%s%s", resolved,
             strcmp(resolved, "/") == 0 ? "" : "/", base);
}

int path_identity_same(const path_identity *a, const path_identity *b) {
    if (a->exists && b->exists && a->device == b->device && a->inode == b->inode) return 1;
    return a->canonical[0] && strcmp(a->canonical, b->canonical) == 0;
}

int path_check_output(const char *path, const char *what, io_error *err) {
    char dir[SETTINGS_PATH_MAX];
    const char *base = NULL;
    split(path, dir, sizeof dir, &base);
    if (!base[0]) return io_fail(err, IO_ERR_INPUT, path, 0, what, "names a directory, not a file");
    struct stat st;
    if (stat(dir, &st) != 0)
        return io_fail(err, IO_ERR_FILE, path, 0, what, "directory '%s' does not exist (%s)", dir,
                       strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return io_fail(err, IO_ERR_FILE, path, 0, what, "'%s' is not a directory", dir);
    if (access(dir, W_OK | X_OK) != 0)
        return io_fail(err, IO_ERR_FILE, path, 0, what, "directory '%s' is not writable (%s)", dir,
                       strerror(errno));
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return io_fail(err, IO_ERR_INPUT, path, 0, what, "is a directory, not a file");
        if (!S_ISREG(st.st_mode))
            return io_fail(err, IO_ERR_INPUT, path, 0, what,
                           "exists and is not a regular file (it would be replaced)");
    }
    return IO_OK;
}
