#include "CMosquitto.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

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
    return READY ? p_loop_read(mosq, max_packets) : MOSQ_ERR_NOT_SUPPORTED;
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

void tc_mosquitto_connect_callback_set(struct mosquitto *mosq, void (*on_connect)(struct mosquitto *, void *, int)) {
    if (READY) p_connect_callback_set(mosq, on_connect);
}

void tc_mosquitto_disconnect_callback_set(struct mosquitto *mosq,
                                          void (*on_disconnect)(struct mosquitto *, void *, int)) {
    if (READY) p_disconnect_callback_set(mosq, on_disconnect);
}

void tc_mosquitto_message_callback_set(struct mosquitto *mosq,
                                       void (*on_message)(struct mosquitto *, void *,
                                                          const struct mosquitto_message *)) {
    if (READY) p_message_callback_set(mosq, on_message);
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
