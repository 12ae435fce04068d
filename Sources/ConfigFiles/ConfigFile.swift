import TOML
import FoundationEssentials
import Glibc
import TalkingClockCore

/// Finding and reading the config file: the daemon, its reload and every command that reads the
/// configuration come here.
public enum ConfigFile {
    /// Reads the config file (`path`, or the default location if it exists; none gives the
    /// defaults) and applies the command line's overrides. `run`, `say`, `schedule` and reload
    /// all come here: a path that is there but is not a readable config file (a directory, a
    /// named pipe, garbage) is an error for each, never the defaults in silence nor a hang.
    public static func loadConfig(path explicit: String?, overrides: ConfigOverrides) throws(DaemonStartError) -> Config {
        var config = Config()
        if let path = explicit ?? Self.defaultConfigPath() {
            if let text = try readConfigText(path) {
                do { config = try Config.parse(text, source: path, zones: ZoneResolver.lookup()) } catch {
                    throw DaemonStartError(status: .badInput, description: error.description)
                }
            } else if explicit != nil {
                throw DaemonStartError(status: .badInput, description: "The config file \(path) does not exist; create it (see 'talking-clock config-example') or drop --config.")
            }
        }
        let merged = config.merged(with: overrides)
        // The file's language, phrasing and lead-in agree (Config.parse checks them); an
        // override may break that: `--language de` with `phrasing = "12h"` in the file.
        if overrides.language != nil || overrides.phrasing != nil {
            let source = overrides.language != nil ? "--language" : "--phrasing"
            do { try merged.checkSpeech(source: source) } catch {
                throw DaemonStartError(status: .badInput, description: error.description)
            }
        }
        return merged
    }

    /// `$XDG_CONFIG_HOME/talking-clock/config.toml` (default `~/.config`): see `UserPaths`.
    public static func defaultConfigPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        UserPaths.configFile(environment: environment)
    }

    /// Config files larger than this are not a config file (and `--config /dev/zero` must not
    /// read forever).
    static let maximumConfigSize = 1 << 20

    /// The config file as text, or nil when there is nothing at `path` (nor a directory on the
    /// way to it). Unreadable, oversized and non-UTF-8 files are errors that say which, and so is
    /// anything that is not a file: a directory (it used to be read as an empty config, so the
    /// defaults applied without a word), a named pipe (start-up waited forever for a writer), a
    /// socket. It is opened without blocking and checked before anything is read; a character
    /// device is read like a file, so `--config /dev/null` is the empty config.
    static func readConfigText(_ path: String) throws(DaemonStartError) -> String? {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { return nil }
            throw DaemonStartError(
                status: .badInput,
                description: "Could not read the config file \(path) (\(String(cString: strerror(code)))); check its permissions.")
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            throw DaemonStartError(
                status: .badInput, description: "Could not read the config file \(path) (\(String(cString: strerror(errno)))).")
        }
        let type = st.st_mode & S_IFMT
        guard type == S_IFREG || type == S_IFCHR else {
            throw DaemonStartError(status: .badInput, description: notAFile(path, type: type))
        }
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while data.count <= maximumConfigSize {
            let n = read(fd, &buffer, buffer.count)
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                let reason = errno == EAGAIN ? "it has nothing to read without waiting" : String(cString: strerror(errno))
                throw DaemonStartError(
                    status: .badInput,
                    description: "Could not read the config file \(path) (\(reason)); a config is a TOML text file, see 'talking-clock config-example'.")
            }
            data += buffer[0..<n]
        }
        guard data.count <= maximumConfigSize else {
            throw DaemonStartError(
                status: .badInput,
                description:
                    "The config file \(path) is larger than \(maximumConfigSize) bytes, so it is not a talking-clock config; point --config at the right file (see 'talking-clock config-example')."
            )
        }
        if let text = String(validating: data, as: UTF8.self) { return text }
        let lines = data.split(separator: 0x0A, omittingEmptySubsequences: false)
        let bad = (lines.firstIndex { String(validating: $0, as: UTF8.self) == nil } ?? 0) + 1
        throw DaemonStartError(
            status: .badInput,
            description:
                "\(path): line \(bad): the file is not UTF-8 text (it may be damaged or not a config file); a config is a TOML text file, see 'talking-clock config-example'."
        )
    }

    /// The sentence for a config path that is a directory, a named pipe, a socket or a block
    /// device: what it is, and the fix.
    static func notAFile(_ path: String, type: mode_t) -> String {
        let fix = "(see 'talking-clock config-example'), or point --config at a config file."
        switch type {
        case S_IFDIR:
            return "The config file \(path) is a directory, not a file; move the directory away and write the config in a file of that name \(fix)"
        case S_IFIFO:
            return "The config file \(path) is a named pipe (FIFO), not a file, and reading it would wait for a writer forever; replace it with a regular file \(fix)"
        case S_IFSOCK:
            return "The config file \(path) is a socket, not a file; replace it with a regular file \(fix)"
        default:
            return "The config file \(path) is a block device, not a file; replace it with a regular file \(fix)"
        }
    }
}
