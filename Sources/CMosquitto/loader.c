#include "CMosquitto.h"

#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[512];
static bool loaded;

// One pointer per function, typed by the header's own prototype.
#define POINTER(name) static __typeof__(mosquitto_##name) *p_##name
POINTER(lib_init);
POINTER(new);
POINTER(destroy);
POINTER(user_data_set);
POINTER(will_set);
POINTER(username_pw_set);
POINTER(tls_set);
POINTER(connect_async);
POINTER(reconnect_async);
POINTER(disconnect);
POINTER(socket);
POINTER(want_write);
POINTER(loop_read);
POINTER(loop_write);
POINTER(loop_misc);
POINTER(publish);
POINTER(subscribe);
POINTER(strerror);
POINTER(connack_string);
POINTER(connect_callback_set);
POINTER(disconnect_callback_set);
POINTER(message_callback_set);
POINTER(int_option);
POINTER(subscribe_v5);
POINTER(reason_string);

// The guard around libmosquitto's parser (see tc_mosquitto_loop_read in the header). Armed (non-NULL)
// only on the thread inside the guarded call, and lifted while a callback runs.
static __thread sigjmp_buf *guard;
static struct sigaction previous_abort;

// abort() unblocks SIGABRT, releases its lock and raises; a handler that does not return is
// allowed (POSIX abort(): "unless the signal SIGABRT is being caught and the signal handler does not
// return"), and glibc's abort is written for it.
static void on_abort(int sig, siginfo_t *info, void *context) {
    sigjmp_buf *jump = guard;
    if (jump) {
        guard = NULL;
        siglongjmp(*jump, 1);
    }
    // Not libmosquitto's parser: whoever handled SIGABRT before (the Swift runtime's backtracer),
    // then abort() goes on to end the process as it always did.
    if (previous_abort.sa_flags & SA_SIGINFO) {
        if (previous_abort.sa_sigaction) previous_abort.sa_sigaction(sig, info, context);
    } else if (previous_abort.sa_handler != SIG_DFL && previous_abort.sa_handler != SIG_IGN) {
        previous_abort.sa_handler(sig);
    }
}

static void install_guard(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_abort;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    sigaction(SIGABRT, &action, &previous_abort);
}

static void load(void) {
    // The soname libmosquitto1 installs (the ABI this header describes).
    void *lib = dlopen("libmosquitto.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(failure, sizeof failure,
                 "libmosquitto could not be loaded (%s); install it (Debian/Ubuntu: apt install libmosquitto1)",
                 dlerror());
        return;
    }
    const char *missing = NULL;
#define RESOLVE(name)                                                                                                  \
    p_##name = (__typeof__(p_##name))dlsym(lib, "mosquitto_" #name);                                                   \
    if (!p_##name && !missing) missing = "mosquitto_" #name;
    RESOLVE(lib_init);
    RESOLVE(new);
    RESOLVE(destroy);
    RESOLVE(user_data_set);
    RESOLVE(will_set);
    RESOLVE(username_pw_set);
    RESOLVE(tls_set);
    RESOLVE(connect_async);
    RESOLVE(reconnect_async);
    RESOLVE(disconnect);
    RESOLVE(socket);
    RESOLVE(want_write);
    RESOLVE(loop_read);
    RESOLVE(loop_write);
    RESOLVE(loop_misc);
    RESOLVE(publish);
    RESOLVE(subscribe);
    RESOLVE(strerror);
    RESOLVE(connack_string);
    RESOLVE(connect_callback_set);
    RESOLVE(disconnect_callback_set);
    RESOLVE(message_callback_set);
    RESOLVE(int_option);
    RESOLVE(subscribe_v5);
    RESOLVE(reason_string);
#undef RESOLVE
    if (missing) {
        snprintf(failure, sizeof failure,
                 "libmosquitto.so.1 lacks a function talking-clock needs (%s); reinstall libmosquitto1", missing);
        return;
    }
    // Not thread-safe in libmosquitto, and it seeds OpenSSL: exactly once, here under pthread_once.
    int rc = p_lib_init();
    if (rc != MOSQ_ERR_SUCCESS) {
        snprintf(failure, sizeof failure, "libmosquitto could not be initialised (mosquitto_lib_init: %s)",
                 p_strerror(rc));
        return;
    }
    install_guard();
    loaded = true;
}

const char *tc_mosquitto_load(void) {
    pthread_once(&once, load);
    return loaded ? NULL : failure;
}

#define READY (tc_mosquitto_load() == NULL)

struct mosquitto *tc_mosquitto_new(const char *id, bool clean_session, void *obj) {
    return READY ? p_new(id, clean_session, obj) : NULL;
}

void tc_mosquitto_destroy(struct mosquitto *mosq) {
    if (READY) p_destroy(mosq);
}

void tc_mosquitto_user_data_set(struct mosquitto *mosq, void *obj) {
    if (READY) p_user_data_set(mosq, obj);
}

int tc_mosquitto_will_set(struct mosquitto *mosq, const char *topic, int payloadlen, const void *payload, int qos,
                          bool retain) {
    return READY ? p_will_set(mosq, topic, payloadlen, payload, qos, retain) : MOSQ_ERR_NOT_SUPPORTED;
}

int tc_mosquitto_username_pw_set(struct mosquitto *mosq, const char *username, const char *password) {
    return READY ? p_username_pw_set(mosq, username, password) : MOSQ_ERR_NOT_SUPPORTED;
}

int tc_mosquitto_tls_set(struct mosquitto *mosq, const char *cafile, const char *capath, const char *certfile,
                         const char *keyfile, int (*pw_callback)(char *buf, int size, int rwflag, void *userdata)) {
    return READY ? p_tls_set(mosq, cafile, capath, certfile, keyfile, pw_callback) : MOSQ_ERR_NOT_SUPPORTED;
}

int tc_mosquitto_connect_async(struct mosquitto *mosq, const char *host, int port, int keepalive) {
    return READY ? p_connect_async(mosq, host, port, keepalive) : MOSQ_ERR_NOT_SUPPORTED;
}

int tc_mosquitto_reconnect_async(struct mosquitto *mosq) {
    return READY ? p_reconnect_async(mosq) : MOSQ_ERR_NOT_SUPPORTED;
}

int tc_mosquitto_disconnect(struct mosquitto *mosq) { return READY ? p_disconnect(mosq) : MOSQ_ERR_NOT_SUPPORTED; }

int tc_mosquitto_socket(struct mosquitto *mosq) { return READY ? p_socket(mosq) : -1; }

bool tc_mosquitto_want_write(struct mosquitto *mosq) { return READY ? p_want_write(mosq) : false; }

int tc_mosquitto_loop_read(struct mosquitto *mosq, int max_packets) {
    if (!READY) return MOSQ_ERR_NOT_SUPPORTED;
    sigjmp_buf jump;
    if (sigsetjmp(jump, 1)) return TC_MOSQ_ERR_ABORTED;  // guard was reset by the handler
    guard = &jump;
    int rc = p_loop_read(mosq, max_packets);
    guard = NULL;
    return rc;
}

int tc_mosquitto_loop_write(struct mosquitto *mosq, int max_packets) {
    return READY ? p_loop_write(mosq, max_packets) : MOSQ_ERR_NOT_SUPPORTED;
}

int tc_mosquitto_loop_misc(struct mosquitto *mosq) { return READY ? p_loop_misc(mosq) : MOSQ_ERR_NOT_SUPPORTED; }

int tc_mosquitto_publish(struct mosquitto *mosq, int *mid, const char *topic, int payloadlen, const void *payload,
                         int qos, bool retain) {
    return READY ? p_publish(mosq, mid, topic, payloadlen, payload, qos, retain) : MOSQ_ERR_NOT_SUPPORTED;
}

int tc_mosquitto_subscribe(struct mosquitto *mosq, int *mid, const char *sub, int qos) {
    return READY ? p_subscribe(mosq, mid, sub, qos) : MOSQ_ERR_NOT_SUPPORTED;
}

const char *tc_mosquitto_strerror(int mosq_errno) {
    const char *why = tc_mosquitto_load();
    return why ? why : p_strerror(mosq_errno);
}

const char *tc_mosquitto_connack_string(int connack_code) {
    const char *why = tc_mosquitto_load();
    return why ? why : p_connack_string(connack_code);
}

// The callbacks the MQTT target set, called by the trampolines below with the guard lifted.
static void (*user_on_connect)(struct mosquitto *, void *, int);
static void (*user_on_disconnect)(struct mosquitto *, void *, int);
static void (*user_on_message)(struct mosquitto *, void *, const struct mosquitto_message *);

static void guarded_on_connect(struct mosquitto *mosq, void *obj, int rc) {
    sigjmp_buf *armed = guard;
    guard = NULL;
    if (user_on_connect) user_on_connect(mosq, obj, rc);
    guard = armed;
}

static void guarded_on_disconnect(struct mosquitto *mosq, void *obj, int rc) {
    sigjmp_buf *armed = guard;
    guard = NULL;
    if (user_on_disconnect) user_on_disconnect(mosq, obj, rc);
    guard = armed;
}

static void guarded_on_message(struct mosquitto *mosq, void *obj, const struct mosquitto_message *message) {
    sigjmp_buf *armed = guard;
    guard = NULL;
    if (user_on_message) user_on_message(mosq, obj, message);
    guard = armed;
}

void tc_mosquitto_connect_callback_set(struct mosquitto *mosq, void (*on_connect)(struct mosquitto *, void *, int)) {
    if (!READY) return;
    user_on_connect = on_connect;
    p_connect_callback_set(mosq, on_connect ? guarded_on_connect : NULL);
}

void tc_mosquitto_disconnect_callback_set(struct mosquitto *mosq,
                                          void (*on_disconnect)(struct mosquitto *, void *, int)) {
    if (!READY) return;
    user_on_disconnect = on_disconnect;
    p_disconnect_callback_set(mosq, on_disconnect ? guarded_on_disconnect : NULL);
}

void tc_mosquitto_message_callback_set(struct mosquitto *mosq,
                                       void (*on_message)(struct mosquitto *, void *,
                                                          const struct mosquitto_message *)) {
    if (!READY) return;
    user_on_message = on_message;
    p_message_callback_set(mosq, on_message ? guarded_on_message : NULL);
}

int tc_mosquitto_int_option(struct mosquitto *mosq, enum mosq_opt_t option, int value) {
    return READY ? p_int_option(mosq, option, value) : MOSQ_ERR_NOT_SUPPORTED;
}

int tc_mosquitto_subscribe_v5(struct mosquitto *mosq, int *mid, const char *sub, int qos, int options) {
    return READY ? p_subscribe_v5(mosq, mid, sub, qos, options, NULL) : MOSQ_ERR_NOT_SUPPORTED;
}

const char *tc_mosquitto_reason_string(int reason_code) {
    const char *why = tc_mosquitto_load();
    return why ? why : p_reason_string(reason_code);
}
