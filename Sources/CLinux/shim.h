#ifndef TALKING_CLOCK_CLINUX_SHIM_H
#define TALKING_CLOCK_CLINUX_SHIM_H
/* Linux interfaces missing from Swift's Glibc module: timerfd, signalfd, epoll.
   No _GNU_SOURCE here: it would change shared struct layouts (fd_set) against the Glibc module. */
#include <sys/timerfd.h>
#include <sys/signalfd.h>
#include <sys/epoll.h>
#include <signal.h>

static inline int tc_sigprocmask_block(const sigset_t *set) { return sigprocmask(SIG_BLOCK, set, 0); }
#endif
