import EventLoop
import ConfigFiles
import ClockEngine
import Courtesy
import FoundationEssentials
import Glibc
import SpeechDispatcher
import TalkingClockCore

/// The daemon's desktop courtesy, at the edges: the bounded look, ducking or pausing other
/// programs around an announcement, and the screen reader's speech server. Everything that talks
/// to a server (PulseAudio, the session bus, speech-dispatcher) runs on a job thread, so the loop
/// never waits for one; a headless machine starts no thread and loads no library for the look.
final class CourtesyEdges {
    private let loop: EventLoop
    private let logger: JournalLog
    /// Where the volumes to restore are written before anything is ducked (a kill -9 mid-announcement
    /// is repaired at the next start).
    let duckFile: URL
    private let looker: BackgroundJob<CourtesyFindings>
    private let media: BackgroundJob<MediaCourtesyRun?>
    private let speech: BackgroundJob<SpeechDispatcher.Result>
    private var run: MediaCourtesyRun?
    private var endWhenStarted = false
    /// The speech-dispatcher connection: used only on the speech job's thread, one job at a time
    /// (a new one after a job is given up).
    private var speechBox = SpeechBox()

    init(loop: EventLoop, logger: JournalLog, stateDirectory: URL?) throws(SystemError) {
        self.loop = loop
        self.logger = logger
        duckFile = (stateDirectory ?? FileManager.default.temporaryDirectory)
            .appendingPathComponent(stateDirectory == nil ? "talking-clock-ducked-\(getpid()).json" : "ducked.json")
        looker = try BackgroundJob(loop: loop)
        media = try BackgroundJob(loop: loop)
        speech = try BackgroundJob(loop: loop)
    }

    /// At start: volumes a killed clock left ducked are put back.
    func repairAtStart() {
        let restored = MediaCourtesyRun.repairAtStart(stateFile: duckFile)
        if restored > 0 { logger.notice("ducked volumes restored", metadata: ["streams": "\(restored)", "file": duckFile.path]) }
    }

    /// One look within `budget` real seconds, off the loop; `done` gets the findings on the loop.
    func look(budget: Double, _ done: @escaping (CourtesyFindings) -> Void) {
        guard !looker.isRunning else { return done(.nothing) }  // one look at a time; a second finds nothing
        looker.start({ CourtesyLook.look(budget: budget) }, completion: done)
    }

    /// Ducks or pauses as `plan` says (the announcement is starting).
    func begin(_ plan: MediaPlan) {
        guard plan != .leave, run == nil, !media.isRunning else { return }
        let file = duckFile
        endWhenStarted = false
        media.start({ MediaCourtesyRun(plan, stateFile: file) }) { [unowned self] run in
            self.run = run
            for problem in run?.problems ?? [] { self.logger.warning("courtesy", metadata: ["problem": problem]) }
            if self.endWhenStarted { self.end() }
        }
    }

    /// Restores what `begin` ducked or paused (the announcement ended, was cut or failed).
    func end() {
        if media.isRunning {
            endWhenStarted = true
            return
        }
        guard let run else { return }
        self.run = nil
        media.start({ run.end(); return run }) { [unowned self] run in
            for problem in run?.problems ?? [] { self.logger.warning("courtesy", metadata: ["problem": problem]) }
        }
    }

    /// Hands `text` to speech-dispatcher at priority `message` (the connection is kept); `done`
    /// gets what came of it on the loop. Each SSIP exchange is bounded inside the library
    /// (`SpeechDispatcher.defaultTimeout`): one that does not answer closes its connection, and the
    /// next words open a new one. The job has a bound of its own beside it, in case a call is
    /// stuck where the library cannot interrupt it.
    func speak(_ text: String, _ done: @escaping (SpeechAnswer) -> Void) {
        guard !speech.isRunning else {
            return done(.failed("still busy with the previous words"))
        }
        let box = speechBox
        let bound = SpeechDispatcher.defaultTimeout * 2 + 1
        speech.start(
            within: bound,
            { () -> SpeechDispatcher.Result in
                if box.connection == nil { box.connection = SpeechDispatcher(timeout: SpeechDispatcher.defaultTimeout) }
                return box.connection!.speak(text)
            },
            completion: { result in done(result.isQueued ? .spoke : .failed(result.text)) },
            timedOut: { [unowned self] in
                self.speechBox = SpeechBox()  // the stuck thread keeps the old connection
                done(.failed("speech-dispatcher did not answer within \(Int(bound)) s; it is asked again next time"))
            })
    }
}

private final class SpeechBox: @unchecked Sendable {
    var connection: SpeechDispatcher?
}
