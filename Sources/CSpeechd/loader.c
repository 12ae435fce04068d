#include "CSpeechd.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <speech-dispatcher/libspeechd.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[512];
static int loaded;

#define POINTER(name) static __typeof__(name) *p_##name
POINTER(spd_open2);
POINTER(spd_say);
POINTER(spd_close);

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
    loaded = 1;
}

const char *tc_speechd_load(void) {
    pthread_once(&once, load);
    return loaded ? NULL : failure;
}

void *tc_speechd_open(const char *client_name, int autospawn, char *err, size_t errlen) {
    const char *why = tc_speechd_load();
    if (why) {
        snprintf(err, errlen, "%s", why);
        return NULL;
    }
    char *error = NULL;
    SPDConnection *c = p_spd_open2(client_name, "announcement", NULL, SPD_MODE_SINGLE, NULL, autospawn, &error);
    if (!c) {
        snprintf(err, errlen,
                 "could not connect to speech-dispatcher (%s); start it (`speech-dispatcher`, Debian/Ubuntu package "
                 "speech-dispatcher) or set voice-output = \"clips\"",
                 error ? error : "no reason given");
        free(error);
    }
    return c;
}

int tc_speechd_say_message(void *connection, const char *text, char *err, size_t errlen) {
    if (!connection || tc_speechd_load()) {
        snprintf(err, errlen, "no speech-dispatcher connection");
        return -1;
    }
    int id = p_spd_say((SPDConnection *)connection, SPD_MESSAGE, text);
    if (id < 0) {
        snprintf(err, errlen, "speech-dispatcher refused the message (spd_say returned %d)", id);
        return -1;
    }
    return id;
}

void tc_speechd_close(void *connection) {
    if (connection && !tc_speechd_load()) p_spd_close((SPDConnection *)connection);
}
