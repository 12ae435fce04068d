import ClockEngine
import TalkingClockCore

/// The journal as a surface: every outcome's line and every line the engine logs.
final class JournalSurface: EngineSurface {
    let logger: JournalLog
    init(logger: JournalLog) { self.logger = logger }

    func outcome(_ outcome: Outcome) { log(outcome.logLine) }

    func log(_ line: LogLine) {
        logger.log(
            level: JournalLog.Level(rawValue: line.level.rawValue) ?? .info, line.message,
            metadata: Dictionary(line.metadata, uniquingKeysWith: { _, new in new }))
    }
}

/// systemd's `STATUS=` (shown by `systemctl --user status talking-clock`).
final class SystemdSurface: EngineSurface {
    let notifier: SystemdNotifier
    init(notifier: SystemdNotifier) { self.notifier = notifier }
    func status(_ report: StatusReport, line: String) { notifier.send("STATUS=\(line)") }
}
