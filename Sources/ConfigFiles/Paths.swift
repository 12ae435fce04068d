import FoundationEssentials
import Glibc

/// Where the user's config, state and packs live (XDG Base Directory spec), all from one home
/// resolution, so a process started without `HOME` (some cron and service setups) finds the same
/// files as the user's shell.
public enum UserPaths {
    /// `$HOME`, or the home directory in the user's passwd entry when `HOME` is unset or empty.
    public static func home(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let home = environment["HOME"], !home.isEmpty { return home }
        return passwdHome()
    }

    /// The home directory of the process's user in the passwd database (`getpwuid_r`).
    static func passwdHome() -> String? {
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        guard getpwuid_r(getuid(), &entry, &buffer, buffer.count, &found) == 0, found != nil, let dir = entry.pw_dir
        else {
            return nil
        }
        let home = String(cString: dir)
        return home.isEmpty ? nil : home
    }

    /// An XDG base directory: the variable when it holds an absolute path (the spec says relative
    /// values are to be ignored), otherwise `fallback` under the home directory.
    static func base(_ variable: String, fallback: String, environment: [String: String]) -> String? {
        if let value = environment[variable], value.hasPrefix("/") { return value }
        return home(environment: environment).map { $0 + "/" + fallback }
    }

    /// `$XDG_CONFIG_HOME/talking-clock/config.toml` (default `~/.config`); nil without any home.
    public static func configFile(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        base("XDG_CONFIG_HOME", fallback: ".config", environment: environment).map { $0 + "/talking-clock/config.toml" }
    }

    /// `$XDG_STATE_HOME/talking-clock` (default `~/.local/state`).
    public static func stateDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        let state =
            base("XDG_STATE_HOME", fallback: ".local/state", environment: environment) ?? FileManager.default.homeDirectoryForCurrentUser.path
            + "/.local/state"
        return URL(fileURLWithPath: state).appendingPathComponent("talking-clock")
    }

    /// `$XDG_CACHE_HOME/talking-clock` (default `~/.cache`): reminder texts rendered by a pack's
    /// synthesis engine, kept by content. Nil without any home.
    public static func cacheDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL? {
        base("XDG_CACHE_HOME", fallback: ".cache", environment: environment).map {
            URL(fileURLWithPath: $0).appendingPathComponent("talking-clock")
        }
    }

    /// `DIR/talking-clock/packs` for each `DIR` of `$XDG_DATA_DIRS` (default `/usr/local/share:/usr/share`;
    /// relative entries are ignored), then `/usr/share/talking-clock/packs` in any case: the Debian
    /// package installs its packs there, and a session may set `XDG_DATA_DIRS` without it.
    public static func systemPacksDirectories(environment: [String: String] = ProcessInfo.processInfo.environment)
        -> [URL]
    {
        let dirs = environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share"
        return (dirs.split(separator: ":").map(String.init).filter { $0.hasPrefix("/") } + ["/usr/share"]).map {
            URL(fileURLWithPath: $0).appendingPathComponent("talking-clock/packs")
        }
    }

    /// `$XDG_DATA_HOME/talking-clock/packs` (default `~/.local/share`), where installed packs live.
    public static func packsDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL? {
        base("XDG_DATA_HOME", fallback: ".local/share", environment: environment).map {
            URL(fileURLWithPath: $0).appendingPathComponent("talking-clock/packs")
        }
    }
}

/// Where the control socket lives: `$XDG_RUNTIME_DIR/talking-clock/control.sock`
/// (falling back to `/run/user/UID`, then `/tmp/talking-clock-UID`).
public enum ControlPaths {
    /// `environment` nil reads the process's own (one `getenv`: every client command starts here, and
    /// copying the whole environment into a dictionary costs a bare `say` ~0.1 ms).
    public static func directory(environment: [String: String]? = nil) -> String {
        let runtime = environment.map { $0["XDG_RUNTIME_DIR"] } ?? getenv("XDG_RUNTIME_DIR").map { String(cString: $0) }
        if let runtime, !runtime.isEmpty { return runtime + "/talking-clock" }
        let uid = String(getuid())
        let run = "/run/user/" + uid
        if access(run, F_OK) == 0 { return run + "/talking-clock" }
        return "/tmp/talking-clock-" + uid
    }

    public static func socket(environment: [String: String]? = nil) -> String {
        directory(environment: environment) + "/control.sock"
    }
}
