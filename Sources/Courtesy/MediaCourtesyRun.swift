import DesktopBus
import FoundationEssentials
import Glibc
import SoundServer
import TalkingClockCore

/// Carries out a `MediaPlan` around one announcement: `begin` ducks or pauses, `end` puts things
/// back. Blocking (local sockets, bounded by `timeout` per exchange): the shell runs both off
/// the event loop, `begin` just before the onset and `end` when the announcement has ended, was
/// cut or failed. `repairAtStart` restores volumes a killed clock left ducked.
public final class MediaCourtesyRun {
    public let plan: MediaPlan
    private let ducker: Ducker?
    private let busAddress: String?
    private let timeout: Double
    /// The players this run paused (the only ones `end` may resume).
    public private(set) var paused: [String] = []
    /// Streams ducked, for the log.
    public private(set) var ducked = 0
    /// What went wrong, for the log (the announcement goes ahead regardless).
    public private(set) var problems: [String] = []

    /// Ducks (the record in `stateFile` first) or pauses, as `plan` says.
    public init(
        _ plan: MediaPlan, stateFile: URL, timeout: Double = 0.5,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.plan = plan
        self.timeout = timeout
        self.busAddress = SessionBus.address(environment: environment)
        switch plan {
        case .leave:
            ducker = nil
        case .duck(let streams, let percent):
            let ducker = Ducker(stateFile: stateFile, server: environment["PULSE_SERVER"], timeout: timeout)
            self.ducker = ducker
            do { ducked = try ducker.duck(streams: streams, percent: percent).entries.count } catch {
                problems.append("could not duck other programs: \(error)")
            }
        case .pause(let players):
            ducker = nil
            guard let busAddress else { return }
            do {
                let bus = try SessionBus(address: busAddress, timeout: timeout)
                paused = MPRIS.pause(players, on: bus, timeout: timeout)
            } catch {
                problems.append("could not pause players: \(error)")
            }
        }
    }

    /// Restores the ducked volumes, or resumes the players this run paused that are still paused.
    /// Safe to call more than once.
    public func end() {
        if let ducker {
            do { try ducker.restore() } catch { problems.append("could not restore volumes: \(error)") }
        }
        if !paused.isEmpty, let busAddress {
            do {
                let bus = try SessionBus(address: busAddress, timeout: timeout)
                MPRIS.resume(paused, on: bus, timeout: timeout)
            } catch {
                problems.append("could not resume players: \(error)")
            }
            paused = []
        }
    }

    /// At the daemon's start: volumes a killed clock left ducked are put back. Returns how many.
    @discardableResult
    public static func repairAtStart(stateFile: URL, timeout: Double = 0.5) -> Int {
        guard FileManager.default.fileExists(atPath: stateFile.path) else { return 0 }
        return (try? Ducker.repair(stateFile: stateFile, timeout: timeout)) ?? 0
    }
}
