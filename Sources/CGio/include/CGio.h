#ifndef TALKING_CLOCK_CGIO_H
#define TALKING_CLOCK_CGIO_H
// GIO (GLib's D-Bus and GSettings), loaded on first use (dlopen) instead of linked, like
// CSndfile and CMosquitto: a headless machine with no session bus never loads it. The few
// operations the courtesy look and the MPRIS pauser need, each synchronous with a timeout, on a
// private connection the caller opens and closes (never GLib's shared singleton, never a main
// loop). Method calls never auto-start a service: asking whether do-not-disturb is on must not
// launch a notification daemon.
// The library is libglib2.0-0; loader.c declares the few GLib functions it uses itself (no
// build-time GLib headers). Imported by the DesktopBus target only.
#include <stddef.h>

typedef struct tc_bus tc_bus;

/// Loads libgio-2.0.so.0 once per process (thread-safe). NULL when loaded, else a sentence.
const char *tc_gio_load(void);

/// Connects to the bus at `address` (a D-Bus address such as "unix:path=/run/user/1000/bus") and
/// says Hello, giving up after timeout_ms. NULL with a sentence in err on failure.
tc_bus *tc_bus_open(const char *address, int timeout_ms, char *err, size_t errlen);
/// Closes and frees the connection.
void tc_bus_close(tc_bus *bus);

/// org.freedesktop.DBus.ListNames, keeping the names that start with `prefix`, written
/// NUL-separated into out (truncated at outlen). Returns how many, or -1 with err.
int tc_bus_list_names(tc_bus *bus, const char *prefix, int timeout_ms, char *out, size_t outlen, char *err,
                      size_t errlen);

/// org.freedesktop.DBus.Properties.Get of a string property into out. 0, or -1 with err.
int tc_bus_get_string(tc_bus *bus, const char *name, const char *path, const char *interface, const char *property,
                      int timeout_ms, char *out, size_t outlen, char *err, size_t errlen);

/// Properties.Get of a boolean property. 0 or 1, or -1 with err.
int tc_bus_get_bool(tc_bus *bus, const char *name, const char *path, const char *interface, const char *property,
                    int timeout_ms, char *err, size_t errlen);

/// Calls a method that takes no arguments (e.g. org.mpris.MediaPlayer2.Player.Pause). 0, or -1.
int tc_bus_call(tc_bus *bus, const char *name, const char *path, const char *interface, const char *method,
                int timeout_ms, char *err, size_t errlen);

/// A boolean GSettings key (g_settings_get_boolean), or -1 with err when the schema is not
/// installed (not GNOME) or has no such key. Uses the default backend (dconf on GNOME).
int tc_gsettings_get_bool(const char *schema, const char *key, char *err, size_t errlen);

#endif
