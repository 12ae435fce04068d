import TalkingClockCore

/// A failure to start, with the exit status it maps to.
public struct DaemonStartError: Error, CustomStringConvertible {
    public var status: ExitStatus
    public var description: String
    public init(status: ExitStatus, description: String) {
        self.status = status
        self.description = description
    }
}
