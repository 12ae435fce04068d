import ClockEngine
import EventLoop
import TalkingClockCore

/// Writes the state file off the loop (a slow disk: an SD card under load, NFS, an fsync of
/// seconds), one write at a time and always the newest state: a save asked for while a write runs
/// is folded into the next one. A request is answered by the first write that started after it
/// was made (so that write holds its state), with that write's error if it failed.
///
/// Nothing on the loop waits for the disk: the boundary's record is written while its first
/// sample plays, a mute is applied (and answered) once its write has ended.
final class StateWriter {
    typealias Completion = (_ requests: [ReplyTo], _ error: String?) -> Void

    private let store: StateStore
    private let job: BackgroundJob<String?>
    private var newest: PersistentState?
    private var waiting: [ReplyTo] = []
    /// What the file holds, as far as this writer knows (the state loaded at start, then each
    /// write that ended well): asking for it again with nothing pending writes nothing.
    private var onDisk: PersistentState?
    private let done: Completion
    /// Called for a failed write no request waited for (the boundary's record).
    private let failed: (String) -> Void

    init(
        store: StateStore, loop: EventLoop, onDisk: PersistentState?, done: @escaping Completion, failed: @escaping (String) -> Void
    ) throws(SystemError) {
        self.store = store
        self.onDisk = onDisk
        self.done = done
        self.failed = failed
        job = try BackgroundJob(loop: loop)
    }

    /// Whether a write is running or waiting.
    var isBusy: Bool { job.isRunning || newest != nil }

    func save(_ state: PersistentState, for request: ReplyTo?) {
        if request == nil, !job.isRunning, newest == nil, state == onDisk { return }
        newest = state
        if let request { waiting.append(request) }
        writeNext()
    }

    private func writeNext() {
        guard !job.isRunning, let state = newest else { return }
        newest = nil
        let requests = waiting
        waiting = []
        let store = self.store
        job.start({ () -> String? in
            do throws(StateStoreError) {
                try store.save(state)
                return nil
            } catch {
                return error.description
            }
        }) { [unowned self] error in
            if error == nil { self.onDisk = state }
            if let error, requests.isEmpty { self.failed(error) }
            self.done(requests, error)
            self.writeNext()
        }
    }
}
