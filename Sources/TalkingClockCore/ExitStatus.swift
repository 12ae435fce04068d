/// Exit codes of every `talking-clock` command: cron and systemd users script against them.
public enum ExitStatus: Int32, Sendable, CaseIterable {
    /// Spoke, or the command did what was asked.
    case ok = 0
    /// Nothing was spoken on purpose: muted, or quiet hours say silent.
    case muted = 2
    /// No boundary within `--max-wait`, or the announcement could not start by boundary + late-limit.
    case stale = 3
    /// A control command found no daemon listening.
    case noDaemon = 4
    /// A bad option, argument, zone or configuration (sysexits EX_USAGE).
    case badInput = 64
    /// The sound pack is missing, damaged or cannot say something (EX_DATAERR).
    case packError = 65
    /// The sound device is missing, busy or failed (EX_UNAVAILABLE).
    case deviceError = 69
    /// A bug (EX_SOFTWARE).
    case internalError = 70
    /// An output or state file could not be written (EX_CANTCREAT).
    case cannotWrite = 73
    /// Busy, try again: another daemon holds the state, the daemon has too many clients, or an
    /// announcement is about to play (EX_TEMPFAIL).
    case busy = 75

    public var summary: String {
        switch self {
        case .ok: "spoke / done"
        case .muted: "muted or in quiet hours: nothing spoken"
        case .stale: "no boundary within --max-wait, or too late to speak it"
        case .noDaemon: "no daemon is running"
        case .badInput: "bad option, argument, zone or configuration"
        case .packError: "sound pack missing, damaged or incomplete"
        case .deviceError: "sound device missing, busy or failed"
        case .internalError: "internal error"
        case .cannotWrite: "cannot write the output or state file"
        case .busy: "busy: another daemon holds the state, too many clients, or a boundary is about to be spoken"
        }
    }

    /// The table printed in `--help` and the README. (`String(_:)` rather than interpolation: it is
    /// built on every start, and generic interpolation of the raw value costs a protocol-conformance
    /// scan of the whole binary.)
    public static var table: String {
        allCases.map { "  " + String($0.rawValue) + "\t" + $0.summary }.joined(separator: "\n")
    }
}
