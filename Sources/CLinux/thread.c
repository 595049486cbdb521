#include "CLinux.h"

#include <errno.h>
#include <sys/prctl.h>

int name_current_thread(const char *name) {
    return prctl(PR_SET_NAME, name, 0, 0, 0) == 0 ? 0 : -errno;
}
