import ConfigFiles
import FoundationEssentials
import TalkingClockCore

/// What the daemon was started with (command line over config file).
public struct DaemonOptions {
    public var configPath: String?
    public var overrides: ConfigOverrides
    public var driver: Driver?
    /// Where mute and the last boundary spoken persist; nil keeps them in memory only (a run on a
    /// shifted or simulated clock must never change what a real-clock run will do).
    public var stateDirectory: URL?
    public var socketPath: String?
    public var clock: ClockSource
    /// `announce --next`: announce the next boundary (within `maxWait`) and exit.
    public var oneShot: Bool
    public var maxWait: Double
    /// How long before a boundary the device is opened and fed silence.
    public var lead: Double
    /// The program's version, for Home Assistant discovery (`sw`).
    public var version: String
    /// Every log line (a one-shot run otherwise writes only warnings and errors: cron mails output).
    public var verbose = false

    public init(
        configPath: String? = nil, overrides: ConfigOverrides = ConfigOverrides(), driver: Driver? = nil,
        stateDirectory: URL? = StateStore.defaultDirectory(), socketPath: String? = ControlPaths.socket(),
        clock: ClockSource = ClockSource(), oneShot: Bool = false, maxWait: Double = 60, lead: Double = 1.0,
        version: String = "unknown"
    ) {
        self.configPath = configPath
        self.overrides = overrides
        self.driver = driver
        self.stateDirectory = stateDirectory
        self.socketPath = socketPath
        self.clock = clock
        self.oneShot = oneShot
        self.maxWait = maxWait
        self.lead = lead
        self.version = version
    }
}

