#include "CGio.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <time.h>

// GLib's ABI, declared here rather than included: <gio/gio.h> needs two architecture-specific
// include paths (pkg-config glib-2.0), which a SwiftPM C target cannot ask pkg-config for.
// These declarations match GLib 2.x (stable ABI since 2.0; checked against 2.74's headers).
typedef int gboolean;
typedef struct _GDBusConnection GDBusConnection;
typedef struct _GVariant GVariant;
typedef struct _GVariantType GVariantType;
typedef struct _GSettingsSchemaSource GSettingsSchemaSource;
typedef struct _GSettingsSchema GSettingsSchema;
typedef struct _GSettings GSettings;
typedef struct _GCancellable GCancellable;
typedef struct _GError {
    unsigned int domain;
    int code;
    char *message;
} GError;
#define TRUE 1
#define G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT (1 << 0)
#define G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION (1 << 3)
#define G_DBUS_CALL_FLAGS_NO_AUTO_START (1 << 0)
#define G_VARIANT_TYPE_STRING ((const GVariantType *)"s")
#define G_VARIANT_TYPE_BOOLEAN ((const GVariantType *)"b")
GDBusConnection *g_dbus_connection_new_for_address_sync(const char *address, int flags, void *observer,
                                                        void *cancellable, GError **error);
gboolean g_dbus_connection_close_sync(GDBusConnection *connection, void *cancellable, GError **error);
GVariant *g_dbus_connection_call_sync(GDBusConnection *connection, const char *bus_name, const char *object_path,
                                      const char *interface_name, const char *method_name, GVariant *parameters,
                                      const GVariantType *reply_type, int flags, int timeout_msec, void *cancellable,
                                      GError **error);
void g_object_unref(void *object);
GCancellable *g_cancellable_new(void);
void g_cancellable_cancel(GCancellable *cancellable);
void g_error_free(GError *error);
GVariant *g_variant_new(const char *format_string, ...);
void g_variant_unref(GVariant *value);
GVariant *g_variant_get_child_value(GVariant *value, size_t index);
GVariant *g_variant_get_variant(GVariant *value);
gboolean g_variant_is_of_type(GVariant *value, const GVariantType *type);
const char *g_variant_get_string(GVariant *value, size_t *length);
gboolean g_variant_get_boolean(GVariant *value);
size_t g_variant_n_children(GVariant *value);
GSettingsSchemaSource *g_settings_schema_source_get_default(void);
GSettingsSchema *g_settings_schema_source_lookup(GSettingsSchemaSource *source, const char *schema_id,
                                                 gboolean recursive);
gboolean g_settings_schema_has_key(GSettingsSchema *schema, const char *name);
void g_settings_schema_unref(GSettingsSchema *schema);
GSettings *g_settings_new_full(GSettingsSchema *schema, void *backend, const char *path);
gboolean g_settings_get_boolean(GSettings *settings, const char *key);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[512];
static int loaded;

#define POINTER(name) static __typeof__(name) *p_##name
POINTER(g_dbus_connection_new_for_address_sync);
POINTER(g_dbus_connection_close_sync);
POINTER(g_dbus_connection_call_sync);
POINTER(g_object_unref);
POINTER(g_cancellable_new);
POINTER(g_cancellable_cancel);
POINTER(g_error_free);
POINTER(g_variant_new);
POINTER(g_variant_unref);
POINTER(g_variant_get_child_value);
POINTER(g_variant_get_variant);
POINTER(g_variant_is_of_type);
POINTER(g_variant_get_string);
POINTER(g_variant_get_boolean);
POINTER(g_variant_n_children);
POINTER(g_settings_schema_source_get_default);
POINTER(g_settings_schema_source_lookup);
POINTER(g_settings_schema_has_key);
POINTER(g_settings_schema_unref);
POINTER(g_settings_new_full);
POINTER(g_settings_get_boolean);

static void load(void) {
    void *lib = dlopen("libgio-2.0.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(failure, sizeof failure,
                 "GIO could not be loaded (%s); install it (Debian/Ubuntu: apt install libglib2.0-0)", dlerror());
        return;
    }
    const char *missing = NULL;
    // dlsym on the GIO handle also searches its dependencies (GObject, GLib).
#define RESOLVE(name)                                                                                                  \
    p_##name = (__typeof__(p_##name))dlsym(lib, #name);                                                                \
    if (!p_##name && !missing) missing = #name;
    RESOLVE(g_dbus_connection_new_for_address_sync);
    RESOLVE(g_dbus_connection_close_sync);
    RESOLVE(g_dbus_connection_call_sync);
    RESOLVE(g_object_unref);
    RESOLVE(g_cancellable_new);
    RESOLVE(g_cancellable_cancel);
    RESOLVE(g_error_free);
    RESOLVE(g_variant_new);
    RESOLVE(g_variant_unref);
    RESOLVE(g_variant_get_child_value);
    RESOLVE(g_variant_get_variant);
    RESOLVE(g_variant_is_of_type);
    RESOLVE(g_variant_get_string);
    RESOLVE(g_variant_get_boolean);
    RESOLVE(g_variant_n_children);
    RESOLVE(g_settings_schema_source_get_default);
    RESOLVE(g_settings_schema_source_lookup);
    RESOLVE(g_settings_schema_has_key);
    RESOLVE(g_settings_schema_unref);
    RESOLVE(g_settings_new_full);
    RESOLVE(g_settings_get_boolean);
#undef RESOLVE
    if (missing) {
        snprintf(failure, sizeof failure, "libgio-2.0.so.0 lacks a function talking-clock needs (%s); reinstall libglib2.0-0",
                 missing);
        return;
    }
    loaded = 1;
}

const char *tc_gio_load(void) {
    pthread_once(&once, load);
    return loaded ? NULL : failure;
}

struct tc_bus {
    GDBusConnection *connection;
};

static int fail_with(GError *error, const char *what, char *err, size_t errlen) {
    snprintf(err, errlen, "%s: %s", what, error ? error->message : "unknown error");
    if (error) p_g_error_free(error);
    return -1;
}

// Connecting has no timeout of its own (a bus that accepts and never answers would hold the
// caller for ever): a watchdog thread cancels it at the deadline.
typedef struct {
    pthread_mutex_t mutex;
    pthread_cond_t condition;
    int done;
    struct timespec deadline;
    GCancellable *cancellable;
} watchdog;

static void *watch(void *raw) {
    watchdog *w = raw;
    pthread_mutex_lock(&w->mutex);
    int rc = 0;
    while (!w->done && rc != ETIMEDOUT) rc = pthread_cond_timedwait(&w->condition, &w->mutex, &w->deadline);
    if (!w->done) p_g_cancellable_cancel(w->cancellable);
    pthread_mutex_unlock(&w->mutex);
    return NULL;
}

tc_bus *tc_bus_open(const char *address, int timeout_ms, char *err, size_t errlen) {
    const char *why = tc_gio_load();
    if (why) {
        snprintf(err, errlen, "%s", why);
        return NULL;
    }
    watchdog w = {.done = 0, .cancellable = p_g_cancellable_new()};
    pthread_mutex_init(&w.mutex, NULL);
    pthread_condattr_t attributes;
    pthread_condattr_init(&attributes);
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
    pthread_cond_init(&w.condition, &attributes);
    pthread_condattr_destroy(&attributes);
    clock_gettime(CLOCK_MONOTONIC, &w.deadline);
    w.deadline.tv_sec += timeout_ms / 1000;
    w.deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (w.deadline.tv_nsec >= 1000000000L) {
        w.deadline.tv_sec += 1;
        w.deadline.tv_nsec -= 1000000000L;
    }
    pthread_t thread;
    int watching = pthread_create(&thread, NULL, watch, &w) == 0;

    GError *error = NULL;
    GDBusConnection *c = p_g_dbus_connection_new_for_address_sync(
        address, G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION, NULL,
        w.cancellable, &error);

    pthread_mutex_lock(&w.mutex);
    w.done = 1;
    pthread_cond_signal(&w.condition);
    pthread_mutex_unlock(&w.mutex);
    if (watching) pthread_join(thread, NULL);
    pthread_cond_destroy(&w.condition);
    pthread_mutex_destroy(&w.mutex);
    p_g_object_unref(w.cancellable);
    if (!c) {
        fail_with(error, "could not connect to the session bus", err, errlen);
        return NULL;
    }
    tc_bus *bus = calloc(1, sizeof *bus);
    bus->connection = c;
    return bus;
}

void tc_bus_close(tc_bus *bus) {
    if (!bus) return;
    p_g_dbus_connection_close_sync(bus->connection, NULL, NULL);
    p_g_object_unref(bus->connection);
    free(bus);
}

static GVariant *call(tc_bus *bus, const char *name, const char *path, const char *interface, const char *method,
                      GVariant *parameters, int timeout_ms, char *err, size_t errlen) {
    GError *error = NULL;
    GVariant *reply = p_g_dbus_connection_call_sync(bus->connection, name, path, interface, method, parameters, NULL,
                                                    G_DBUS_CALL_FLAGS_NO_AUTO_START, timeout_ms, NULL, &error);
    if (!reply) {
        char what[256];
        snprintf(what, sizeof what, "%s.%s on %s", interface, method, name);
        fail_with(error, what, err, errlen);
    }
    return reply;
}

int tc_bus_list_names(tc_bus *bus, const char *prefix, int timeout_ms, char *out, size_t outlen, char *err,
                      size_t errlen) {
    GVariant *reply = call(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "ListNames",
                           NULL, timeout_ms, err, errlen);
    if (!reply) return -1;
    GVariant *names = p_g_variant_get_child_value(reply, 0);
    size_t n = p_g_variant_n_children(names), used = 0;
    int count = 0;
    size_t prefixlen = strlen(prefix);
    for (size_t i = 0; i < n; i++) {
        GVariant *v = p_g_variant_get_child_value(names, i);
        const char *s = p_g_variant_get_string(v, NULL);
        size_t len = strlen(s);
        if (strncmp(s, prefix, prefixlen) == 0 && used + len + 1 <= outlen) {
            memcpy(out + used, s, len + 1);
            used += len + 1;
            count++;
        }
        p_g_variant_unref(v);
    }
    p_g_variant_unref(names);
    p_g_variant_unref(reply);
    return count;
}

static GVariant *get_property(tc_bus *bus, const char *name, const char *path, const char *interface,
                              const char *property, int timeout_ms, char *err, size_t errlen) {
    GVariant *reply = call(bus, name, path, "org.freedesktop.DBus.Properties", "Get",
                           p_g_variant_new("(ss)", interface, property), timeout_ms, err, errlen);
    if (!reply) return NULL;
    GVariant *boxed = p_g_variant_get_child_value(reply, 0);
    GVariant *value = p_g_variant_get_variant(boxed);
    p_g_variant_unref(boxed);
    p_g_variant_unref(reply);
    return value;
}

int tc_bus_get_string(tc_bus *bus, const char *name, const char *path, const char *interface, const char *property,
                      int timeout_ms, char *out, size_t outlen, char *err, size_t errlen) {
    GVariant *value = get_property(bus, name, path, interface, property, timeout_ms, err, errlen);
    if (!value) return -1;
    int rc = 0;
    if (p_g_variant_is_of_type(value, G_VARIANT_TYPE_STRING)) {
        snprintf(out, outlen, "%s", p_g_variant_get_string(value, NULL));
    } else {
        snprintf(err, errlen, "%s of %s is not a string", property, name);
        rc = -1;
    }
    p_g_variant_unref(value);
    return rc;
}

int tc_bus_get_bool(tc_bus *bus, const char *name, const char *path, const char *interface, const char *property,
                    int timeout_ms, char *err, size_t errlen) {
    GVariant *value = get_property(bus, name, path, interface, property, timeout_ms, err, errlen);
    if (!value) return -1;
    int rc;
    if (p_g_variant_is_of_type(value, G_VARIANT_TYPE_BOOLEAN)) {
        rc = p_g_variant_get_boolean(value) ? 1 : 0;
    } else {
        snprintf(err, errlen, "%s of %s is not a boolean", property, name);
        rc = -1;
    }
    p_g_variant_unref(value);
    return rc;
}

int tc_bus_call(tc_bus *bus, const char *name, const char *path, const char *interface, const char *method,
                int timeout_ms, char *err, size_t errlen) {
    GVariant *reply = call(bus, name, path, interface, method, NULL, timeout_ms, err, errlen);
    if (!reply) return -1;
    p_g_variant_unref(reply);
    return 0;
}

int tc_gsettings_get_bool(const char *schema_id, const char *key, char *err, size_t errlen) {
    const char *why = tc_gio_load();
    if (why) {
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    // Look the schema up first: g_settings_new aborts the process on an unknown schema.
    GSettingsSchemaSource *source = p_g_settings_schema_source_get_default();
    GSettingsSchema *schema = source ? p_g_settings_schema_source_lookup(source, schema_id, TRUE) : NULL;
    if (!schema) {
        snprintf(err, errlen, "the GSettings schema %s is not installed", schema_id);
        return -1;
    }
    if (!p_g_settings_schema_has_key(schema, key)) {
        p_g_settings_schema_unref(schema);
        snprintf(err, errlen, "the GSettings schema %s has no key %s", schema_id, key);
        return -1;
    }
    GSettings *settings = p_g_settings_new_full(schema, NULL, NULL);
    int value = p_g_settings_get_boolean(settings, key) ? 1 : 0;
    p_g_object_unref(settings);
    p_g_settings_schema_unref(schema);
    return value;
}
