// The parts of libsystemd this package calls. Swift cannot call C variadic functions, so only
// the non-variadic entry points are used: sd_journal_sendv (not sd_journal_send) and sd_notify
// (not sd_notifyf).
#ifndef SWIFT_PREFERENCES_CSYSTEMD_SHIM_H
#define SWIFT_PREFERENCES_CSYSTEMD_SHIM_H

#include <sys/uio.h>
#include <systemd/sd-journal.h>
#include <systemd/sd-daemon.h>

#endif
