#include "CPulse.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pulse/pulseaudio.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[512];
static int loaded;

#define POINTER(name) static __typeof__(pa_##name) *p_##name
POINTER(mainloop_new);
POINTER(mainloop_free);
POINTER(mainloop_get_api);
POINTER(mainloop_prepare);
POINTER(mainloop_poll);
POINTER(mainloop_dispatch);
POINTER(context_new);
POINTER(context_unref);
POINTER(context_connect);
POINTER(context_disconnect);
POINTER(context_get_state);
POINTER(context_errno);
POINTER(context_get_sink_input_info_list);
POINTER(context_get_source_output_info_list);
POINTER(context_set_sink_input_volume);
POINTER(context_get_sink_info_list);
POINTER(operation_unref);
POINTER(proplist_gets);
POINTER(strerror);

static void load(void) {
    void *lib = dlopen("libpulse.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(failure, sizeof failure,
                 "libpulse could not be loaded (%s); install it (Debian/Ubuntu: apt install libpulse0)", dlerror());
        return;
    }
    const char *missing = NULL;
#define RESOLVE(name)                                                                                                  \
    p_##name = (__typeof__(p_##name))dlsym(lib, "pa_" #name);                                                          \
    if (!p_##name && !missing) missing = "pa_" #name;
    RESOLVE(mainloop_new);
    RESOLVE(mainloop_free);
    RESOLVE(mainloop_get_api);
    RESOLVE(mainloop_prepare);
    RESOLVE(mainloop_poll);
    RESOLVE(mainloop_dispatch);
    RESOLVE(context_new);
    RESOLVE(context_unref);
    RESOLVE(context_connect);
    RESOLVE(context_disconnect);
    RESOLVE(context_get_state);
    RESOLVE(context_errno);
    RESOLVE(context_get_sink_input_info_list);
    RESOLVE(context_get_source_output_info_list);
    RESOLVE(context_set_sink_input_volume);
    RESOLVE(context_get_sink_info_list);
    RESOLVE(operation_unref);
    RESOLVE(proplist_gets);
    RESOLVE(strerror);
#undef RESOLVE
    if (missing) {
        snprintf(failure, sizeof failure, "libpulse.so.0 lacks a function talking-clock needs (%s); reinstall libpulse0",
                 missing);
        return;
    }
    loaded = 1;
}

const char *tc_pulse_load(void) {
    pthread_once(&once, load);
    return loaded ? NULL : failure;
}

static int64_t now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

// One connection and its loop, with a deadline.
typedef struct {
    pa_mainloop *loop;
    pa_context *context;
    int64_t deadline;
    // Operations still pending; the caller's callbacks decrement it.
    int pending;
    char *err;
    size_t errlen;
} session;

// Runs the loop until `done(s)` or the deadline; 0 when done, -1 on timeout or failure.
static int run_until(session *s, int (*done)(session *)) {
    while (!done(s)) {
        pa_context_state_t state = p_context_get_state(s->context);
        if (state == PA_CONTEXT_FAILED || state == PA_CONTEXT_TERMINATED) {
            snprintf(s->err, s->errlen, "the sound server closed the connection (%s)",
                     p_strerror(p_context_errno(s->context)));
            return -1;
        }
        int64_t left = s->deadline - now_us();
        if (left <= 0) {
            snprintf(s->err, s->errlen, "the sound server did not answer in time");
            return -1;
        }
        if (p_mainloop_prepare(s->loop, (int)left) < 0 || p_mainloop_poll(s->loop) < 0 ||
            p_mainloop_dispatch(s->loop) < 0) {
            snprintf(s->err, s->errlen, "the sound server connection's loop failed");
            return -1;
        }
    }
    return 0;
}

static int is_ready(session *s) {
    pa_context_state_t state = p_context_get_state(s->context);
    return state == PA_CONTEXT_READY;
}

static int nothing_pending(session *s) { return s->pending == 0; }

static int open_session(session *s, const char *server, int timeout_ms, char *err, size_t errlen) {
    memset(s, 0, sizeof *s);
    s->err = err;
    s->errlen = errlen;
    s->deadline = now_us() + (int64_t)timeout_ms * 1000;
    const char *why = tc_pulse_load();
    if (why) {
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    s->loop = p_mainloop_new();
    if (!s->loop) {
        snprintf(err, errlen, "pa_mainloop_new failed");
        return -1;
    }
    s->context = p_context_new(p_mainloop_get_api(s->loop), "talking-clock");
    if (!s->context) {
        snprintf(err, errlen, "pa_context_new failed");
        return -1;
    }
    // Never start a server: a machine without one has nothing to be courteous to.
    if (p_context_connect(s->context, server, PA_CONTEXT_NOAUTOSPAWN, NULL) < 0) {
        snprintf(err, errlen, "no sound server to connect to (%s)", p_strerror(p_context_errno(s->context)));
        return -1;
    }
    return run_until(s, is_ready);
}

static void close_session(session *s) {
    if (s->context) {
        p_context_disconnect(s->context);
        p_context_unref(s->context);
    }
    if (s->loop) p_mainloop_free(s->loop);
}

typedef struct {
    session base;
    tc_pulse_stream *out;
    int capacity;
    int count;
} listing;

static void copy_prop(char *dst, size_t size, pa_proplist *props, const char *key, const char *fallback) {
    const char *v = props ? p_proplist_gets(props, key) : NULL;
    if (!v) v = fallback ? fallback : "";
    snprintf(dst, size, "%s", v);
}

static void add_stream(listing *l, uint32_t index, int is_record, int corked, pa_proplist *props, const char *name,
                       const pa_cvolume *volume) {
    int i = l->count++;
    if (i >= l->capacity) return;
    tc_pulse_stream *s = &l->out[i];
    memset(s, 0, sizeof *s);
    s->index = index;
    s->is_record = is_record;
    s->corked = corked;
    char pid[32];
    copy_prop(pid, sizeof pid, props, PA_PROP_APPLICATION_PROCESS_ID, "0");
    s->pid = (uint32_t)strtoul(pid, NULL, 10);
    copy_prop(s->application, sizeof s->application, props, PA_PROP_APPLICATION_NAME, name);
    copy_prop(s->role, sizeof s->role, props, PA_PROP_MEDIA_ROLE, "");
    copy_prop(s->app_id, sizeof s->app_id, props, PA_PROP_APPLICATION_ID, "");
    if (volume) {
        s->channels = volume->channels;
        for (int c = 0; c < volume->channels && c < TC_PULSE_MAX_CHANNELS; c++) s->volume[c] = volume->values[c];
    }
}

static void on_sink_input(pa_context *c, const pa_sink_input_info *info, int eol, void *userdata) {
    (void)c;
    listing *l = userdata;
    if (eol) {
        l->base.pending--;
        return;
    }
    add_stream(l, info->index, 0, info->corked, info->proplist, info->name, &info->volume);
}

static void on_source_output(pa_context *c, const pa_source_output_info *info, int eol, void *userdata) {
    (void)c;
    listing *l = userdata;
    if (eol) {
        l->base.pending--;
        return;
    }
    add_stream(l, info->index, 1, info->corked, info->proplist, info->name, NULL);
}

int tc_pulse_list_streams(const char *server, int timeout_ms, tc_pulse_stream *out, int capacity, char *err,
                          size_t errlen) {
    listing l;
    int result = -1;
    if (open_session(&l.base, server, timeout_ms, err, errlen) == 0) {
        l.out = out;
        l.capacity = capacity;
        l.count = 0;
        // Sink inputs first, then source outputs (one connection, answered in order).
        pa_operation *a = p_context_get_sink_input_info_list(l.base.context, on_sink_input, &l);
        pa_operation *b = p_context_get_source_output_info_list(l.base.context, on_source_output, &l);
        l.base.pending = (a != NULL) + (b != NULL);
        if (a && b && run_until(&l.base, nothing_pending) == 0) result = l.count;
        if (!a || !b) snprintf(err, errlen, "the sound server refused to list streams");
        if (a) p_operation_unref(a);
        if (b) p_operation_unref(b);
    }
    close_session(&l.base);
    return result;
}

typedef struct {
    session base;
    int accepted;
} setting;

static void on_set(pa_context *c, int success, void *userdata) {
    (void)c;
    setting *s = userdata;
    if (success) s->accepted++;
    s->base.pending--;
}

int tc_pulse_set_volumes(const char *server, int timeout_ms, int count, const uint32_t *indices,
                         const uint8_t *channels, const uint32_t *volumes, char *err, size_t errlen) {
    setting s;
    int result = -1;
    if (open_session(&s.base, server, timeout_ms, err, errlen) == 0) {
        s.accepted = 0;
        for (int i = 0; i < count; i++) {
            pa_cvolume v;
            v.channels = channels[i];
            if (v.channels == 0 || v.channels > PA_CHANNELS_MAX || v.channels > TC_PULSE_MAX_CHANNELS) continue;
            for (int c = 0; c < v.channels; c++) v.values[c] = volumes[i * TC_PULSE_MAX_CHANNELS + c];
            pa_operation *o = p_context_set_sink_input_volume(s.base.context, indices[i], &v, on_set, &s);
            if (o) {
                s.base.pending++;
                p_operation_unref(o);
            }
        }
        if (run_until(&s.base, nothing_pending) == 0) result = s.accepted;
    }
    close_session(&s.base);
    return result;
}

typedef struct {
    session base;
    tc_pulse_sink *out;
    int capacity;
    int count;
} sink_listing;

static void on_sink(pa_context *c, const pa_sink_info *info, int eol, void *userdata) {
    (void)c;
    sink_listing *l = userdata;
    if (eol) {
        l->base.pending--;
        return;
    }
    int i = l->count++;
    if (i >= l->capacity) return;
    tc_pulse_sink *s = &l->out[i];
    memset(s, 0, sizeof *s);
    s->index = info->index;
    snprintf(s->name, sizeof s->name, "%s", info->name ? info->name : "");
    snprintf(s->description, sizeof s->description, "%s", info->description ? info->description : "");
    snprintf(s->driver, sizeof s->driver, "%s", info->driver ? info->driver : "");
    s->network = (info->flags & PA_SINK_NETWORK) != 0;
    s->has_latency = (info->flags & PA_SINK_LATENCY) != 0;
    s->latency_usec = info->latency;
    s->configured_latency_usec = info->configured_latency;
    s->state = info->state;
}

int tc_pulse_list_sinks(const char *server, int timeout_ms, tc_pulse_sink *out, int capacity, char *err, size_t errlen) {
    sink_listing l;
    int result = -1;
    if (open_session(&l.base, server, timeout_ms, err, errlen) == 0) {
        l.out = out;
        l.capacity = capacity;
        l.count = 0;
        pa_operation *o = p_context_get_sink_info_list(l.base.context, on_sink, &l);
        l.base.pending = o != NULL;
        if (o && run_until(&l.base, nothing_pending) == 0) result = l.count;
        if (!o) snprintf(err, errlen, "the sound server refused to list sinks");
        if (o) p_operation_unref(o);
    }
    close_session(&l.base);
    return result;
}
