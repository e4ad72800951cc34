/* host_io: which file a path names, to keep outputs off inputs and off each other. */
#ifndef HOST_IO_PATH_IDENTITY_H
#define HOST_IO_PATH_IDENTITY_H

#include <sys/types.h>

#include "io_common.h"

typedef struct path_identity {
    char canonical[4096 + SETTINGS_PATH_MAX + 2]; /* absolute, symbolic links and ./.. resolved; ""
                                              if the directory does not exist */
    int exists;                                   /* 1 when the path names an existing file */
    dev_t device;
    ino_t inode;
} path_identity;

/** Resolve path (the file itself when it exists, else its directory plus the last name). */
void path_identity_of(const char *path, path_identity *id);

/** 1 when two identities are the same file: one canonical name, or one device and inode
 *  (hard links). */
int path_identity_same(const path_identity *a, const path_identity *b);

/** An output can be written at path: its directory exists and is writable, and the path is
 *  not a directory nor an existing file without write permission.  what names the output in
 *  the message ("--json", "map output", ...). */
int path_check_output(const char *path, const char *what, io_error *err);

#endif /* HOST_IO_PATH_IDENTITY_H */
