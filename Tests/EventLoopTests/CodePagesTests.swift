import Glibc
import XCTest

@testable import EventLoop

/// The idle daemon gives its clean file pages back (CodePages): only mappings where the kernel
/// keeps what was there may be dropped.
final class CodePagesTests: XCTestCase {
    private func mapping(_ header: String, rss: Int, anonymous: Int = 0, locked: Int = 0) -> String {
        """
        \(header)
        Size:                 64 kB
        Rss:                  \(rss) kB
        Pss:                  \(rss) kB
        Private_Clean:        \(rss - anonymous) kB
        Private_Dirty:        \(anonymous) kB
        Anonymous:            \(anonymous) kB
        Locked:               \(locked) kB
        THPeligible:    0
        VmFlags: rd ex mr mw me

        """
    }

    func testOnlyReadOnlyFileMappingsWithoutPrivateCopiesAreReleasable() {
        let smaps = [
            mapping("55a843df8000-55a843dfd000 r-xp 00002000 fe:00 253911                     /usr/bin/talking-clock", rss: 20),
            mapping("55a843dfd000-55a843dff000 r--p 00007000 fe:00 253911                     /usr/bin/talking-clock", rss: 8),
            // RELRO after relocation: read-only now, but its pages are the process's own copies.
            mapping("55a843dff000-55a843e00000 r--p 00009000 fe:00 253911                     /usr/bin/talking-clock", rss: 4, anonymous: 4),
            mapping("55a843e00000-55a843e01000 rw-p 0000a000 fe:00 253911                     /usr/bin/talking-clock", rss: 4),
            mapping("55a844e01000-55a844e22000 rw-p 00000000 00:00 0                          [heap]", rss: 132, anonymous: 132),
            mapping("7f0000000000-7f0000001000 r--p 00000000 00:00 0 ", rss: 4),
            mapping("7f0000001000-7f0000002000 r-xp 00000000 00:00 0                          [vdso]", rss: 4),
            mapping("7f0000002000-7f0000003000 r-xp 00000000 fe:00 42                         /usr/lib/x86_64-linux-gnu/libc.so.6", rss: 0),
            mapping("7f0000003000-7f0000004000 r-xp 00000000 fe:00 43                         /usr/lib/locked.so", rss: 4, locked: 4),
            mapping("7f0000004000-7f0000005000 ---p 00000000 fe:00 44                         /usr/lib/guard.so", rss: 4),
            mapping("7f0000005000-7f0000006000 r--s 00000000 fe:00 45                         /usr/lib/locale/my file (deleted)", rss: 4),
        ].joined()
        let found = CodePages.releasable(smaps: smaps)
        XCTAssertEqual(
            found.map(\.path), ["/usr/bin/talking-clock", "/usr/bin/talking-clock", "/usr/lib/locale/my file (deleted)"])
        XCTAssertEqual(found.first, CodePages.Mapping(start: 0x55a8_43df_8000, end: 0x55a8_43df_d000, path: "/usr/bin/talking-clock", residentKB: 20))
        XCTAssertEqual(found.map(\.residentKB).reduce(0, +), 32)
    }

    func testAnEmptyOrGarbledTextReleasesNothing() {
        XCTAssertEqual(CodePages.releasable(smaps: ""), [])
        XCTAssertEqual(CodePages.releasable(smaps: "garbage\nRss: x kB\n-\n12-zz r-xp 0 0 0 /bin/x\nRss: 4 kB\n"), [])
    }

    /// In this very process: after a release the test binary's code is no longer resident, and the
    /// code runs on (it is mapped back from the page cache as it is needed).
    func testReleasingThisProcessUnmapsItsCodeAndItKeepsRunning() throws {
        let executable = try XCTUnwrap(realPath("/proc/self/exe"))
        func codeKB() throws -> Int {
            let text = try XCTUnwrap(CodePages.readProcFile("/proc/self/smaps"))
            return CodePages.releasable(smaps: text).filter { $0.path == executable }.map(\.residentKB).reduce(0, +)
        }
        let before = try codeKB()
        XCTAssertGreaterThan(before, 256, "the test binary should have some code resident before the release")
        let released = CodePages.release()
        XCTAssertGreaterThan(released.mappings, 0)
        XCTAssertGreaterThanOrEqual(released.kilobytes, before)
        let after = try codeKB()
        // Reading smaps and this check ran code again between the release and the reading: some
        // pages came back, far fewer than were there.
        XCTAssertLessThan(after, before / 2, "before \(before) kB, after \(after) kB")
        // Work that needs code and constant data of the binary still gives the right answers.
        XCTAssertEqual(CodePages.releasable(smaps: mapping("1000-2000 r-xp 0 0 0 /x", rss: 4)).count, 1)
        XCTAssertEqual((1...100).map { String($0) }.joined().count, 192)
    }

    private func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
