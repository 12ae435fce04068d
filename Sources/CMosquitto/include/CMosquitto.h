#ifndef TALKING_CLOCK_CMOSQUITTO_H
#define TALKING_CLOCK_CMOSQUITTO_H
// libmosquitto, loaded on first use (dlopen) instead of linked: a linked libmosquitto brings
// libssl and libcrypto into every start of talking-clock (a bare `say` included), while only a
// configuration with an [mqtt] table uses it. Same pattern as CSndfile.
// The types and constants come from the system's <mosquitto.h> (package libmosquitto-dev); the
// library itself is libmosquitto1.
//
// Used in external-loop mode only: the owner's epoll loop watches tc_mosquitto_socket() and calls
// tc_mosquitto_loop_read/write/misc; mosquitto_loop_start (the library thread) is never called.
// Imported by the MQTT target only.
#include <stdbool.h>
#include <mosquitto.h>
#include <mqtt_protocol.h>

/// Loads libmosquitto.so.1 and runs mosquitto_lib_init, once per process (thread-safe). Returns
/// NULL when it is loaded, else a sentence saying why it could not be (dlerror's text and the fix).
const char *tc_mosquitto_load(void);

// The libmosquitto functions talking-clock calls, with the library's signatures. Each loads the
// library first; when it cannot be loaded they return NULL, MOSQ_ERR_NOT_SUPPORTED, -1 or false
// (tc_mosquitto_strerror and tc_mosquitto_connack_string: tc_mosquitto_load's sentence).
struct mosquitto *tc_mosquitto_new(const char *id, bool clean_session, void *obj);
void tc_mosquitto_destroy(struct mosquitto *mosq);
void tc_mosquitto_user_data_set(struct mosquitto *mosq, void *obj);
int tc_mosquitto_will_set(struct mosquitto *mosq, const char *topic, int payloadlen, const void *payload, int qos,
                          bool retain);
int tc_mosquitto_username_pw_set(struct mosquitto *mosq, const char *username, const char *password);
int tc_mosquitto_tls_set(struct mosquitto *mosq, const char *cafile, const char *capath, const char *certfile,
                         const char *keyfile, int (*pw_callback)(char *buf, int size, int rwflag, void *userdata));
int tc_mosquitto_connect_async(struct mosquitto *mosq, const char *host, int port, int keepalive);
int tc_mosquitto_reconnect_async(struct mosquitto *mosq);
int tc_mosquitto_disconnect(struct mosquitto *mosq);
int tc_mosquitto_socket(struct mosquitto *mosq);
bool tc_mosquitto_want_write(struct mosquitto *mosq);
/// mosquitto_loop_read, guarded: libmosquitto 2.0.11 (Debian 12) calls log__printf(NULL, ...) when an
/// MQTT 5 packet from the network carries a property identifier it does not know
/// (lib/property_mosq.c, property__read), and log__printf's assert(mosq) aborts the process. Any
/// CONNACK, PUBLISH, SUBACK or DISCONNECT from whoever answers on the broker's address can do it.
/// While libmosquitto parses (and only then: never inside the callbacks, see below) a SIGABRT on
/// this thread jumps back here, and the call returns TC_MOSQ_ERR_ABORTED; the caller must drop the
/// connection (mosquitto_disconnect, then reconnect: that resets the half-read packet). No
/// libmosquitto lock is held where it asserts. What the abandoned call had allocated for the packet
/// (a few small blocks) is lost: bounded by the reconnect rate.
int tc_mosquitto_loop_read(struct mosquitto *mosq, int max_packets);

/// What tc_mosquitto_loop_read returns when libmosquitto aborted on the bytes it was reading.
#define TC_MOSQ_ERR_ABORTED 1000
int tc_mosquitto_loop_write(struct mosquitto *mosq, int max_packets);
int tc_mosquitto_loop_misc(struct mosquitto *mosq);
int tc_mosquitto_publish(struct mosquitto *mosq, int *mid, const char *topic, int payloadlen, const void *payload,
                         int qos, bool retain);
int tc_mosquitto_subscribe(struct mosquitto *mosq, int *mid, const char *sub, int qos);
const char *tc_mosquitto_strerror(int mosq_errno);
const char *tc_mosquitto_connack_string(int connack_code);
// The callbacks run unguarded (an abort inside them is not libmosquitto's parser and must stop
// the process as before): each is called through a trampoline that lifts the guard while it runs.
// One callback of each kind per process (the last set is used for every handle): the MQTT target
// sets the same ones for every client.
void tc_mosquitto_connect_callback_set(struct mosquitto *mosq, void (*on_connect)(struct mosquitto *, void *, int));
void tc_mosquitto_disconnect_callback_set(struct mosquitto *mosq,
                                          void (*on_disconnect)(struct mosquitto *, void *, int));
void tc_mosquitto_message_callback_set(struct mosquitto *mosq,
                                       void (*on_message)(struct mosquitto *, void *, const struct mosquitto_message *));

// MQTT 5 (the protocol is chosen before connecting): "retain as published" on the command topics,
// so a command published with the retain flag while the room is connected is seen as retained.
int tc_mosquitto_int_option(struct mosquitto *mosq, enum mosq_opt_t option, int value);
int tc_mosquitto_subscribe_v5(struct mosquitto *mosq, int *mid, const char *sub, int qos, int options);
const char *tc_mosquitto_reason_string(int reason_code);

#endif
