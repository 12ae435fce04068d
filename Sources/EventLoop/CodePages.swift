import CLinux
import FoundationEssentials
import Glibc


/// Between announcements the daemon hands its clean, read-only file pages (its own code, the C
/// libraries' code and constant data) back to the kernel's page cache, and malloc's free memory back
/// to the system.
///
/// Start-up code (argument parsing, config, the pack's manifest) runs once, yet its pages stay
/// mapped, and the kernel maps up to 16 neighbouring page-cache pages with every fault: most of an
/// idle daemon's resident memory is code it will not run again for 15 minutes. `MADV_DONTNEED` on a
/// private file mapping that no write has touched only unmaps: the pages stay in the page cache (so
/// the kernel can reclaim them like any cached file) and the next access maps them back with a minor
/// fault, from memory, not from disk. Mappings that are writable, or hold a single private copy of
/// a page (relocated data: `Anonymous` above 0 in smaps), are never touched, because there the
/// kernel would throw away what the process wrote.
///
/// Measured by `scripts/bench footprint` (BENCHMARKS.md "Footprint"); `TALKING_CLOCK_KEEP_CODE_PAGES=1`
/// in the daemon's environment turns it off for comparison.
public enum CodePages {
    /// One mapping of /proc/self/smaps that may be dropped.
    public struct Mapping: Equatable, Sendable {
        public let start: UInt
        public let end: UInt
        public let path: String
        public let residentKB: Int
    }

    /// The mappings of an smaps text (`/proc/PID/smaps`) that are safe to drop: backed by a file,
    /// not writable, with no anonymous (copied-on-write) page, not locked, and resident. Pure.
    public static func releasable(smaps: String) -> [Mapping] {
        var found: [Mapping] = []
        var current: (start: UInt, end: UInt, path: String, eligible: Bool)?
        var rss = 0
        var anonymous = 0
        var locked = 0
        func close() {
            if let c = current, c.eligible, rss > 0, anonymous == 0, locked == 0 {
                found.append(Mapping(start: c.start, end: c.end, path: c.path, residentKB: rss))
            }
            current = nil
            rss = 0
            anonymous = 0
            locked = 0
        }
        for line in smaps.split(separator: "\n", omittingEmptySubsequences: true) {
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard let first = fields.first else { continue }
            if first.hasSuffix(":") {
                // "Rss:   123 kB" and the like, for the mapping above.
                guard fields.count >= 2, let value = Int(fields[1]) else { continue }
                switch first {
                case "Rss:": rss = value
                case "Anonymous:": anonymous = value
                case "Locked:": locked = value
                default: break
                }
                continue
            }
            // A mapping's header: "start-end perms offset dev inode [path]".
            let bounds = first.split(separator: "-")
            guard bounds.count == 2, let start = UInt(bounds[0], radix: 16), let end = UInt(bounds[1], radix: 16),
                fields.count >= 5
            else { continue }
            close()
            let perms = Array(fields[1].utf8)
            let path = fields.count == 6 ? String(fields[5].drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed()) : ""
            let readable = perms.count == 4 && perms[0] == UInt8(ascii: "r")
            let writable = perms.count == 4 && perms[1] == UInt8(ascii: "w")
            // A file's path starts with "/"; "[heap]", "[stack]", "[vdso]" and anonymous maps do not.
            // A file replaced on disk shows " (deleted)": its pages are still the old inode's.
            let eligible = readable && !writable && path.hasPrefix("/")
            current = (start, end, path, eligible)
        }
        close()
        return found
    }

    /// What one release gave back.
    public struct Released: Sendable {
        public var mappings = 0
        public var kilobytes = 0
    }

    /// Drops the releasable mappings of this process and trims malloc's free memory. Errors (no
    /// /proc, a mapping that changed meanwhile) only mean less is given back: nothing is at risk,
    /// because a mapping is only advised if smaps showed it clean and read-only.
    @discardableResult
    public static func release() -> Released {
        var released = Released()
        malloc_trim(0)
        guard let text = readProcFile("/proc/self/smaps") else { return released }
        for mapping in releasable(smaps: text) {
            let pointer = UnsafeMutableRawPointer(bitPattern: mapping.start)
            if madvise(pointer, Int(mapping.end - mapping.start), MADV_DONTNEED) == 0 {
                released.mappings += 1
                released.kilobytes += mapping.residentKB
            }
        }
        return released
    }

    /// A /proc file's text (its size is 0 to stat: read to the end), nil if it cannot be read.
    static func readProcFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { return nil }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// False when `TALKING_CLOCK_KEEP_CODE_PAGES=1` asks the daemon to keep its pages (benchmarks).
    public static var enabled: Bool {
        guard let value = getenv("TALKING_CLOCK_KEEP_CODE_PAGES") else { return true }
        return String(cString: value) != "1"
    }
}
