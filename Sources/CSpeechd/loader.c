#define _GNU_SOURCE
#include "CSpeechd.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <speech-dispatcher/libspeechd.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[512];
static int loaded;

#define POINTER(name) static __typeof__(name) *p_##name
POINTER(spd_open2);
POINTER(spd_say);
POINTER(spd_close);

// The deadline's signal: a real-time one glibc does not reserve (SIGRTMIN already skips those).
static int deadline_signal;

static void on_deadline(int sig) { (void)sig; }  // only interrupts the blocked call

static void load(void) {
    void *lib = dlopen("libspeechd.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(failure, sizeof failure,
                 "libspeechd could not be loaded (%s); install it (Debian/Ubuntu: apt install libspeechd2 "
                 "speech-dispatcher)",
                 dlerror());
        return;
    }
    const char *missing = NULL;
#define RESOLVE(name)                                                                                                  \
    p_##name = (__typeof__(p_##name))dlsym(lib, #name);                                                                \
    if (!p_##name && !missing) missing = #name;
    RESOLVE(spd_open2);
    RESOLVE(spd_say);
    RESOLVE(spd_close);
#undef RESOLVE
    if (missing) {
        snprintf(failure, sizeof failure, "libspeechd.so.2 lacks a function talking-clock needs (%s); reinstall libspeechd2",
                 missing);
        return;
    }
    deadline_signal = SIGRTMIN + 6;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_deadline;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;  // no SA_RESTART: the blocked call must return EINTR
    if (sigaction(deadline_signal, &action, NULL) != 0) {
        snprintf(failure, sizeof failure, "the speech-dispatcher time-out could not be set up (sigaction: %s)",
                 strerror(errno));
        return;
    }
    loaded = 1;
}

const char *tc_speechd_load(void) {
    pthread_once(&once, load);
    return loaded ? NULL : failure;
}

struct deadline {
    timer_t timer;
    int has_timer;
    sigset_t saved;
    struct timespec end;
};

static void deadline_start(struct deadline *d, double seconds) {
    sigset_t both;
    sigemptyset(&both);
    sigaddset(&both, deadline_signal);
    sigaddset(&both, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &both, &d->saved);
    if (seconds < 0.001) seconds = 0.001;
    clock_gettime(CLOCK_MONOTONIC, &d->end);
    long long ns = d->end.tv_nsec + (long long)((seconds - (long long)seconds) * 1e9);
    d->end.tv_sec += (time_t)seconds + ns / 1000000000;
    d->end.tv_nsec = ns % 1000000000;

    struct sigevent event;
    memset(&event, 0, sizeof event);
    event.sigev_notify = SIGEV_THREAD_ID;
    event.sigev_signo = deadline_signal;
    event._sigev_un._tid = gettid();
    d->has_timer = timer_create(CLOCK_MONOTONIC, &event, &d->timer) == 0;
    if (d->has_timer) {
        // Again every 20 ms once it has fired: a signal that lands between two calls interrupts
        // nothing, the next one will.
        struct itimerspec when = {.it_value = d->end, .it_interval = {0, 20 * 1000 * 1000}};
        timer_settime(d->timer, TIMER_ABSTIME, &when, NULL);
    }
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, deadline_signal);
    pthread_sigmask(SIG_UNBLOCK, &only, NULL);
}

/// Ends the deadline; returns whether it had passed.
static int deadline_end(struct deadline *d) {
    sigset_t both;
    sigemptyset(&both);
    sigaddset(&both, deadline_signal);
    sigaddset(&both, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &both, NULL);
    if (d->has_timer) timer_delete(d->timer);
    struct timespec zero = {0, 0};
    while (sigtimedwait(&both, NULL, &zero) > 0) {}  // drain what is pending for this thread
    pthread_sigmask(SIG_SETMASK, &d->saved, NULL);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec > d->end.tv_sec || (now.tv_sec == d->end.tv_sec && now.tv_nsec >= d->end.tv_nsec);
}

void *tc_speechd_open(const char *client_name, const char *unix_path, int autospawn, double timeout, int *status,
                      char *err, size_t errlen) {
    const char *why = tc_speechd_load();
    if (why) {
        *status = TC_SPEECHD_NOT_RUNNING;
        snprintf(err, errlen, "%s", why);
        return NULL;
    }
    SPDConnectionAddress given = {0};
    if (unix_path) {
        given.method = SPD_METHOD_UNIX_SOCKET;
        given.unix_socket_name = (char *)unix_path;
    }
    char *error = NULL;
    struct deadline d;
    deadline_start(&d, timeout);
    SPDConnection *c =
        p_spd_open2(client_name, "announcement", NULL, SPD_MODE_SINGLE, unix_path ? &given : NULL, autospawn, &error);
    int expired = deadline_end(&d);
    if (c && c->stream == NULL) {
        // Connected, but its first exchange (SET CLIENT_NAME) got no answer: libspeechd closed the
        // stream and still returned the connection.
        p_spd_close(c);
        c = NULL;
        if (expired) {
            *status = TC_SPEECHD_TIMED_OUT;
            snprintf(err, errlen, "speech-dispatcher accepted the connection but did not answer within %.1f s", timeout);
        } else {
            *status = TC_SPEECHD_NOT_RUNNING;
            snprintf(err, errlen, "speech-dispatcher closed the connection before it answered");
        }
    } else if (!c) {
        *status = expired ? TC_SPEECHD_TIMED_OUT : TC_SPEECHD_NOT_RUNNING;
        if (expired)
            snprintf(err, errlen, "could not connect to speech-dispatcher within %.1f s (%s)", timeout,
                     error ? error : "no reason given");
        else
            snprintf(err, errlen, "could not connect to speech-dispatcher (%s)", error ? error : "no reason given");
    } else {
        *status = TC_SPEECHD_OK;
    }
    free(error);
    return c;
}

int tc_speechd_say_message(void *connection, const char *text, double timeout, int *status, char *err,
                           size_t errlen) {
    SPDConnection *c = connection;
    if (!c || tc_speechd_load() || c->stream == NULL) {
        *status = TC_SPEECHD_NOT_RUNNING;
        snprintf(err, errlen, "no speech-dispatcher connection");
        return -1;
    }
    struct deadline d;
    deadline_start(&d, timeout);
    int id = p_spd_say(c, SPD_MESSAGE, text);
    int expired = deadline_end(&d);
    if (id > 0) {
        *status = TC_SPEECHD_OK;
        return id;
    }
    if (c->stream == NULL && expired) {
        *status = TC_SPEECHD_TIMED_OUT;
        snprintf(err, errlen, "speech-dispatcher did not answer within %.1f s", timeout);
    } else if (c->stream == NULL) {
        *status = TC_SPEECHD_NOT_RUNNING;
        snprintf(err, errlen, "speech-dispatcher closed the connection");
    } else {
        *status = TC_SPEECHD_REFUSED;
        snprintf(err, errlen, "speech-dispatcher refused the message (spd_say returned %d)", id);
    }
    return -1;
}

void tc_speechd_close(void *connection) {
    if (connection && !tc_speechd_load()) p_spd_close((SPDConnection *)connection);
}
