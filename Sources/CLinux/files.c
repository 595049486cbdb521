// glibc's calls on files that Swift cannot reach through Glibc's module: `renameat2`, which
// <stdio.h> declares only under _GNU_SOURCE, and the extended-attribute calls of
// <sys/xattr.h>, which the module leaves out. Wrapped here, where glibc's own headers declare
// them (CLinux.h says why it cannot include them).
#define _GNU_SOURCE
#include "CLinux.h"

#include <stdio.h>
#include <sys/xattr.h>

int rename_no_replace(int olddirfd, const char *oldpath, int newdirfd, const char *newpath) {
    return renameat2(olddirfd, oldpath, newdirfd, newpath, RENAME_NOREPLACE);
}

int set_extended_attribute(int fd, const char *name, const void *value, size_t size, int flags) {
    return fsetxattr(fd, name, value, size, flags);
}

long get_extended_attribute(int fd, const char *name, void *value, size_t size) {
    return fgetxattr(fd, name, value, size);
}

long get_path_extended_attribute(const char *path, const char *name, void *value, size_t size) {
    return lgetxattr(path, name, value, size);
}
