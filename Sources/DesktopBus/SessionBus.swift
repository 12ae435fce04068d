import CGio
import FoundationEssentials
import Glibc

/// A private connection to the D-Bus session bus through GDBus (GIO), for the courtesy look and
/// the MPRIS pauser. Every call is synchronous with its own timeout and never auto-starts a
/// service. Open it for one look or one pause/resume and close it: nothing stays connected while
/// the clock is idle. Not thread-safe; one thread at a time. The only importer of CGio.
public final class SessionBus {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    private let bus: OpaquePointer

    /// The session bus's address: `DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus` when
    /// that socket exists (systemd's user bus); nil when there is none, decided without loading
    /// GIO (a headless machine pays one `stat`).
    public static func address(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return address }
        guard let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty else { return nil }
        let path = runtime + "/bus"
        return FileManager.default.fileExists(atPath: path) ? "unix:path=" + path : nil
    }

    /// Connects (`g_dbus_connection_new_for_address_sync`), giving up after `timeout` seconds (a
    /// bus that accepts and never answers is cancelled then).
    public init(address: String, timeout: Double = 2) throws(Failure) {
        var err = [CChar](repeating: 0, count: 512)
        guard let bus = tc_bus_open(address, Self.ms(timeout), &err, err.count) else {
            throw Failure(description: String(cString: err))
        }
        self.bus = bus
    }

    deinit { tc_bus_close(bus) }

    /// The bus names starting with `prefix` (`org.freedesktop.DBus.ListNames`).
    public func names(withPrefix prefix: String, timeout: Double) throws(Failure) -> [String] {
        var out = [CChar](repeating: 0, count: 16384)
        var err = [CChar](repeating: 0, count: 512)
        let n = tc_bus_list_names(bus, prefix, Self.ms(timeout), &out, out.count, &err, err.count)
        guard n >= 0 else { throw Failure(description: String(cString: err)) }
        var names: [String] = []
        var start = 0
        for _ in 0..<Int(n) {
            let name = out[start...].withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            names.append(name)
            start += name.utf8.count + 1
        }
        return names
    }

    /// A string property (`org.freedesktop.DBus.Properties.Get`).
    public func string(_ name: String, _ path: String, _ interface: String, _ property: String, timeout: Double)
        throws(Failure) -> String
    {
        var out = [CChar](repeating: 0, count: 256)
        var err = [CChar](repeating: 0, count: 512)
        guard tc_bus_get_string(bus, name, path, interface, property, Self.ms(timeout), &out, out.count, &err, err.count) == 0
        else { throw Failure(description: String(cString: err)) }
        return String(cString: out)
    }

    /// A boolean property (`org.freedesktop.DBus.Properties.Get`).
    public func bool(_ name: String, _ path: String, _ interface: String, _ property: String, timeout: Double)
        throws(Failure) -> Bool
    {
        var err = [CChar](repeating: 0, count: 512)
        let v = tc_bus_get_bool(bus, name, path, interface, property, Self.ms(timeout), &err, err.count)
        guard v >= 0 else { throw Failure(description: String(cString: err)) }
        return v == 1
    }

    /// Calls a method without arguments.
    public func call(_ name: String, _ path: String, _ interface: String, _ method: String, timeout: Double) throws(Failure) {
        var err = [CChar](repeating: 0, count: 512)
        guard tc_bus_call(bus, name, path, interface, method, Self.ms(timeout), &err, err.count) == 0 else {
            throw Failure(description: String(cString: err))
        }
    }

    static func ms(_ seconds: Double) -> Int32 { Int32(max(1, min(600_000, (seconds * 1000).rounded(.up)))) }
}

/// GSettings (`g_settings_get_boolean`), through the default backend: dconf on GNOME.
public enum DesktopSettings {
    /// A boolean key, or nil when its schema is not installed (not GNOME) or GIO cannot be loaded.
    public static func bool(schema: String, key: String) -> Bool? {
        var err = [CChar](repeating: 0, count: 512)
        let v = tc_gsettings_get_bool(schema, key, &err, err.count)
        return v < 0 ? nil : v == 1
    }
}
