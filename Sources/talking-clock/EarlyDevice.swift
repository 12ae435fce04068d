import Daemon
import Glibc
import TalkingClockCore

/// The device a `say` command line will play on, read from the raw arguments before the argument
/// parser runs (~3 ms of reflection and config reading), so that `main` can start opening it on
/// the `DeviceOpener` thread at once. Conservative: nil unless the arguments alone say that this
/// process will play (`--local`, or an option that makes `say` speak here instead of asking the
/// daemon) and on which device; anything it does not know, nil. A guess that the parser then
/// refuses costs nothing but the abandoned open; `Say.run` uses an early opener only when its
/// device is the one the settings name.
enum EarlyDevice {
    /// `say` options that take a value (the next argument, or `--name=value`).
    static let valued: [String] = [
        "--tz", "--pack", "--device", "--chime", "--language", "--phrasing", "--config", "--at", "--output",
        "--clock-offset", "--socket", "--wait",
    ]
    /// Flags that do not change where `say` plays.
    static let flags = ["--local"]
    /// Options with which `say` speaks here rather than through a running daemon (see `Say.run`).
    static let speaksHere = ["--local", "--at", "--tz", "--pack", "--device", "--chime", "--language", "--phrasing", "--config"]

    /// - Parameter defaultConfigMayExist: whether the default config file (which may name a
    ///   device) might be there; only asked when neither `--device` nor `--config` is given.
    static func device(arguments: [String], defaultConfigMayExist: () -> Bool) -> String? {
        guard arguments.count > 2, arguments[1] == "say" else { return nil }
        var device: String?
        var here = false
        var config = false
        var i = 2
        while i < arguments.count {
            let argument = arguments[i]
            let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            if flags.contains(name), parts.count == 1 {
                here = here || speaksHere.contains(name)
                i += 1
                continue
            }
            // --dry-run, --output's file, --everywhere, --help, positionals, "--", unknown options: nil.
            guard valued.contains(name), name != "--output" else { return nil }
            let value: String
            if parts.count == 2 {
                value = String(parts[1])
            } else {
                guard i + 1 < arguments.count else { return nil }
                value = arguments[i + 1]
                i += 1
            }
            // A value that looks like an option is the parser's to refuse.
            guard !value.hasPrefix("-") || name == "--clock-offset" else { return nil }
            here = here || speaksHere.contains(name)
            if name == "--config" { config = true }
            if name == "--device" {
                guard device == nil, !value.isEmpty else { return nil }
                device = value
            }
            i += 1
        }
        guard here else { return nil }
        if let device { return device }
        // No --device: the config file's device, else the default one.
        guard !config, !defaultConfigMayExist() else { return nil }
        return Config().device
    }

    /// Whether the default config file may exist (anything but "no such file" counts as yes).
    static func defaultConfigMayExist() -> Bool {
        guard let path = ClockDaemon.defaultConfigPath() else { return false }
        return access(path, F_OK) == 0 || errno != ENOENT
    }
}

extension DeviceOpener {
    /// The opener `main` started before parsing (see `EarlyDevice`); `Say.run` takes it.
    nonisolated(unsafe) private static var early: DeviceOpener?

    static func startEarly(arguments: [String]) {
        guard let device = EarlyDevice.device(arguments: arguments, defaultConfigMayExist: EarlyDevice.defaultConfigMayExist) else { return }
        early = DeviceOpener(device: device)
    }

    /// The early opener if it opens `device`, else a new one (an early opener of another device
    /// is dropped: it waits for its open to end and closes it).
    static func take(device: String) -> DeviceOpener {
        let opener = early
        early = nil
        if let opener, opener.device == device { return opener }
        return DeviceOpener(device: device)
    }

    /// Drops an early opener nobody took (the command failed or was not a spoken `say`): waits
    /// for its thread to leave ALSA and closes the device, so the process can exit.
    static func dropEarly() { early = nil }
}
