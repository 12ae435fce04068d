#ifndef TALKING_CLOCK_CLINUX_SHIM_H
#define TALKING_CLOCK_CLINUX_SHIM_H
/* Linux interfaces missing from Swift's Glibc module: timerfd, signalfd, epoll, peer credentials. */
#define _GNU_SOURCE 1
#include <sys/timerfd.h>
#include <sys/signalfd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <signal.h>
#include <time.h>

static inline int tc_sigprocmask_block(const sigset_t *set) { return sigprocmask(SIG_BLOCK, set, NULL); }
#endif
