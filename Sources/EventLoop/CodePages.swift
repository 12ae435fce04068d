import CLinux
import FoundationEssentials
import Glibc
import Synchronization


/// Between announcements the daemon hands its clean, read-only code pages (its own code and constant
/// data, and the C libraries') back to the kernel's page cache, and malloc's free memory back to the
/// system.
///
/// Start-up code (argument parsing, config, the pack's manifest) runs once, yet its pages stay
/// mapped, and the kernel maps up to 16 neighbouring page-cache pages with every fault: most of an
/// idle daemon's resident memory is code it will not run again for 15 minutes. `MADV_DONTNEED` on a
/// private file mapping that no write has touched only unmaps: the pages stay in the page cache (so
/// the kernel can reclaim them like any cached file) and the next access maps them back with a minor
/// fault, from memory, not from disk.
///
/// Which pages: the read-only `PT_LOAD` segments of the program and of every library, read from the
/// dynamic loader's own list (`dl_iterate_phdr`, under its lock) and trimmed so that no page of a
/// writable segment or of the RELRO region is touched: those hold the process's own copies (the
/// relocated pointers), and `MADV_DONTNEED` would put the file's unrelocated bytes back. A library
/// could otherwise be unloaded and another loaded in its place between finding a range and advising
/// it (the ALSA pulse plugin and libpulse come and go with each open and close): an earlier version
/// advised ranges read from `/proc/self/smaps` and, rarely, hit a library loaded there since (the
/// daemon died calling 0x2760 through the pulse plugin's callback table, and at exit at 0x10b0 from
/// libX11-xcb's `.fini_array`). So a library is released only once it is pinned (`dlopen` with
/// `RTLD_NOLOAD | RTLD_NODELETE`): it can never be unmapped, and its ranges stay its own. Objects
/// with text relocations are left alone.
///
/// Measured by `scripts/bench footprint` (BENCHMARKS.md "Footprint"); `TALKING_CLOCK_KEEP_CODE_PAGES=1`
/// in the daemon's environment turns it off for comparison.
public enum CodePages {
    /// One program header of a loaded object, as much of it as the plan needs.
    public struct Segment: Equatable, Sendable {
        public enum Kind: Equatable, Sendable {
            /// `PT_LOAD`: mapped from the file.
            case load
            /// `PT_GNU_RELRO`: relocated, then made read-only.
            case relro
        }
        public var kind: Kind
        public var writable: Bool
        /// Where it starts in memory (the object's base + `p_vaddr`).
        public var address: UInt
        public var fileSize: UInt
        public var memorySize: UInt

        public init(_ kind: Kind, writable: Bool = false, address: UInt, fileSize: UInt, memorySize: UInt? = nil) {
            self.kind = kind
            self.writable = writable
            self.address = address
            self.fileSize = fileSize
            self.memorySize = memorySize ?? fileSize
        }
    }

    /// The page ranges of one loaded object that hold nothing but the file's bytes: the pages of its
    /// read-only loaded segments (the loader maps whole pages of the file), less every page that a
    /// writable segment or the RELRO region touches, and less a segment's last page when the loader
    /// zero-filled its tail (`p_memsz` over `p_filesz`). Nothing when the object has text
    /// relocations. Pure.
    public static func droppable(_ segments: [Segment], pageSize: UInt, textRelocations: Bool = false) -> [Range<UInt>] {
        guard !textRelocations, pageSize > 0 else { return [] }
        func down(_ a: UInt) -> UInt { a - a % pageSize }
        func up(_ a: UInt) -> UInt { a % pageSize == 0 ? a : down(a) + pageSize }
        let kept: [Range<UInt>] = segments.compactMap { s in
            guard s.kind == .relro || s.writable else { return nil }
            let end = up(s.address + max(s.memorySize, s.fileSize))
            return down(s.address) < end ? down(s.address)..<end : nil
        }
        var ranges: [Range<UInt>] = []
        for s in segments where s.kind == .load && !s.writable {
            let end = s.memorySize > s.fileSize ? down(s.address + s.fileSize) : up(s.address + s.fileSize)
            var pieces = [down(s.address)..<max(down(s.address), end)]
            for k in kept {
                pieces = pieces.flatMap { p -> [Range<UInt>] in
                    guard p.overlaps(k) else { return [p] }
                    return [p.lowerBound..<max(p.lowerBound, k.lowerBound), min(p.upperBound, k.upperBound)..<p.upperBound]
                        .filter { !$0.isEmpty }
                }
            }
            ranges += pieces.filter { !$0.isEmpty }
        }
        return ranges
    }

    /// What one release gave back.
    public struct Released: Sendable {
        /// Ranges advised.
        public var ranges = 0
        /// Their length in kB (resident or not: the kernel unmaps what is there).
        public var kilobytes = 0
    }

    /// Drops the program's and the pinned libraries' clean code pages and trims malloc's free
    /// memory. Errors (a range the kernel refuses) only mean less is given back.
    @discardableResult
    public static func release() -> Released {
        malloc_trim(0)
        pinLoadedLibraries()
        var walk = Walk(pinned: pinned.withLock { $0 }, pageSize: UInt(sysconf(Int32(_SC_PAGESIZE))))
        withUnsafeMutablePointer(to: &walk) { pointer in
            tc_each_loaded_object(
                { info, index, context in
                    guard let info, let context else { return }
                    context.assumingMemoryBound(to: Walk.self).pointee.visit(info.pointee, index: Int(index))
                }, pointer)
        }
        return walk.released
    }

    /// Libraries pinned so far (never unloaded from then on), by the loader's name for them.
    private static let pinned = Mutex<Set<String>>([])

    /// Pins every loaded library not pinned yet. Outside the loader's list lock: `dlopen` takes the
    /// loader's own lock, and a library unloaded meanwhile is simply not found (`RTLD_NOLOAD`).
    static func pinLoadedLibraries() {
        var names: [String] = []
        withUnsafeMutablePointer(to: &names) { pointer in
            tc_each_loaded_object(
                { info, index, context in
                    // Index 0 is the program; names not starting with "/" are the vDSO's and the like.
                    guard index > 0, let name = info?.pointee.name, name.pointee == UInt8(ascii: "/"), let context else { return }
                    context.assumingMemoryBound(to: [String].self).pointee.append(String(cString: name))
                }, pointer)
        }
        let new = pinned.withLock { set in names.filter { !set.contains($0) } }
        for name in new {
            guard let handle = dlopen(name, RTLD_NOLOAD | RTLD_NODELETE | RTLD_LAZY) else { continue }
            dlclose(handle)
            pinned.withLock { _ = $0.insert(name) }
        }
    }

    /// One walk of the loader's list (under its lock): advises the droppable ranges of the program
    /// and of each pinned library.
    private struct Walk {
        let pinned: Set<String>
        let pageSize: UInt
        var released = Released()

        mutating func visit(_ object: tc_loaded_object_info, index: Int) {
            if index > 0 {
                guard let name = object.name, pinned.contains(String(cString: name)) else { return }
            }
            var segments: [Segment] = []
            var textRelocations = false
            for i in 0..<Int(object.phnum) {
                let header = object.phdr[i]
                let address = UInt(object.base) &+ UInt(header.p_vaddr)
                switch header.p_type {
                case UInt32(PT_LOAD):
                    segments.append(
                        Segment(
                            .load, writable: header.p_flags & UInt32(PF_W) != 0, address: address, fileSize: UInt(header.p_filesz),
                            memorySize: UInt(header.p_memsz)))
                case UInt32(PT_GNU_RELRO):
                    segments.append(Segment(.relro, address: address, fileSize: UInt(header.p_filesz), memorySize: UInt(header.p_memsz)))
                case UInt32(PT_DYNAMIC):
                    textRelocations = Self.hasTextRelocations(dynamic: address)
                default: break
                }
            }
            for range in CodePages.droppable(segments, pageSize: pageSize, textRelocations: textRelocations) {
                if madvise(UnsafeMutableRawPointer(bitPattern: range.lowerBound), range.count, MADV_DONTNEED) == 0 {
                    released.ranges += 1
                    released.kilobytes += range.count / 1024
                }
            }
        }

        /// `DT_TEXTREL`, or `DF_TEXTREL` in `DT_FLAGS`: the loader wrote into this object's code.
        static func hasTextRelocations(dynamic: UInt) -> Bool {
            guard var entry = UnsafePointer<Elf64_Dyn>(bitPattern: dynamic) else { return false }
            while entry.pointee.d_tag != Int64(DT_NULL) {
                if entry.pointee.d_tag == Int64(DT_TEXTREL) { return true }
                if entry.pointee.d_tag == Int64(DT_FLAGS), entry.pointee.d_un.d_val & UInt64(DF_TEXTREL) != 0 { return true }
                entry += 1
            }
            return false
        }
    }

    /// False when `TALKING_CLOCK_KEEP_CODE_PAGES=1` asks the daemon to keep its pages (benchmarks).
    public static var enabled: Bool {
        guard let value = getenv("TALKING_CLOCK_KEEP_CODE_PAGES") else { return true }
        return String(cString: value) != "1"
    }
}
