import Glibc
import Playback

/// Runs one playback session to its end on the calling thread, waiting with `poll(2)` on the
/// sink's descriptors (the one-shot commands' loop; the daemon uses its own event loop).
public enum PlaybackRunner {
    public static func run(_ session: PlaybackSession, sink: any AudioSink) {
        let descriptors = sink.pollDescriptors()
        var fds = descriptors.map { pollfd(fd: $0.fd, events: $0.events, revents: 0) }
        while true {
            switch session.pump() {
            case .done:
                return
            case .wait(let timeout):
                let ms = timeout.map { Int32(min(1000, ($0 * 1000).rounded(.up))) } ?? (fds.isEmpty ? 10 : 1000)
                for i in fds.indices { fds[i].revents = 0 }
                let n = poll(&fds, nfds_t(fds.count), ms)
                if n > 0 { sink.acknowledge(revents: fds.map(\.revents)) }
            }
        }
    }
}
