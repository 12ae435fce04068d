import CLinux
import Glibc

/// SIGTERM, SIGINT, SIGHUP delivered as a readable descriptor (`signalfd`).
public final class SignalFD {
    public let fd: Int32

    public init(signals: [Int32]) throws(SystemError) {
        var set = sigset_t()
        sigemptyset(&set)
        for s in signals { sigaddset(&set, s) }
        // sigprocmask: block them so they arrive only through the descriptor.
        guard tc_sigprocmask_block(&set) == 0 else { throw SystemError("sigprocmask") }
        // signalfd
        fd = signalfd(-1, &set, Int32(SFD_NONBLOCK | SFD_CLOEXEC))
        guard fd >= 0 else { throw SystemError("signalfd") }
    }

    deinit { Glibc.close(fd) }

    /// The signals that arrived since the last call.
    public func read() -> [Int32] {
        var result: [Int32] = []
        var info = signalfd_siginfo()
        while Glibc.read(fd, &info, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size {
            result.append(Int32(info.ssi_signo))
        }
        return result
    }
}
