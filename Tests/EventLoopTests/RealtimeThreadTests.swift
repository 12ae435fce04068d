import Foundation
import Glibc
import Synchronization
import XCTest

@testable import EventLoop

/// `Threads.makeCurrentRealtime`: what the device thread asks for as it starts. Granted, the thread
/// and the threads it starts run SCHED_FIFO at the priority asked; refused, nothing changes and the
/// reason is the system's.
final class RealtimeThreadTests: XCTestCase {
    struct Seen: Sendable {
        var result: Threads.Scheduling
        var policy: Int32
        var priority: Int32
        var childPolicy: Int32
    }

    /// Runs on a new thread (the test runner's own must stay as it is) and starts one from there.
    func onNewThread(priority: Int32) throws -> Seen {
        let box = Mutex<Seen?>(nil)
        let done = DispatchSemaphore(value: 0)
        XCTAssertTrue(
            Threads.spawn {
                let result = Threads.makeCurrentRealtime(priority: priority)
                var parameter = sched_param()
                sched_getparam(0, &parameter)
                let policy = sched_getscheduler(0)
                let child = Mutex<Int32>(-1)
                let childDone = DispatchSemaphore(value: 0)
                Threads.spawn {
                    child.withLock { $0 = sched_getscheduler(0) }
                    childDone.signal()
                }
                childDone.wait()
                box.withLock {
                    $0 = Seen(result: result, policy: policy, priority: parameter.sched_priority, childPolicy: child.withLock { $0 })
                }
                done.signal()
            })
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        return try XCTUnwrap(box.withLock { $0 })
    }

    /// May this process have real-time priority `priority` (root's CAP_SYS_NICE, or RLIMIT_RTPRIO)?
    func allowed(_ priority: Int32) -> Bool {
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(14), &limit)  // RLIMIT_RTPRIO (<bits/resource.h>; not imported)
        return geteuid() == 0 || limit.rlim_cur >= rlim_t(priority)
    }

    func testTheThreadAndTheThreadsItStartsRunAtTheAskedPriorityOrItSaysWhyNot() throws {
        let seen = try onNewThread(priority: 4)
        if allowed(4) {
            XCTAssertEqual(seen.result, .realtime(4))
            XCTAssertEqual(seen.policy, SCHED_FIFO)
            XCTAssertEqual(seen.priority, 4)
            XCTAssertEqual(seen.childPolicy, SCHED_FIFO, "the sound library's own threads inherit it")
        } else {
            guard case .normal(let reason) = seen.result else { return XCTFail("\(seen.result) without the right to it") }
            XCTAssertFalse(reason.isEmpty)
            XCTAssertEqual(seen.policy, SCHED_OTHER)
        }
        XCTAssertEqual(sched_getscheduler(0), SCHED_OTHER, "the caller's own thread is untouched")
    }

    /// A priority no system grants (above the kernel's 99) is refused with the kernel's reason, and
    /// the thread stays as it was.
    func testAnImpossiblePriorityIsRefusedAndChangesNothing() throws {
        let seen = try onNewThread(priority: 1000)
        guard case .normal(let reason) = seen.result else { return XCTFail("\(seen.result)") }
        XCTAssertEqual(reason, String(cString: strerror(EINVAL)))
        XCTAssertEqual(seen.policy, SCHED_OTHER)
        XCTAssertEqual(seen.childPolicy, SCHED_OTHER)
    }
}
