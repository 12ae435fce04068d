import SnapcastOutput
import XCTest

/// The model against snapserver 0.26's rules, on chosen instants (no server, no clock).
final class SnapcastTimingTests: XCTestCase {
    func testAFrameIsHeardOneChunkBeforeItsReadPlusTheBuffer() throws {
        var t = SnapcastTiming(rate: 48000, chunkMs: 20, bufferMs: 1000, latencyMs: 30)
        XCTAssertEqual(t.chunkFrames, 960)
        XCTAssertNil(t.heard(frame: 0))
        t.synced(frame: 1920, at: 100)
        // The sync chunk is stamped 100 − 0.02; the buffer and the latency come after.
        XCTAssertEqual(try XCTUnwrap(t.heard(frame: 1920)), 100 - 0.02 + 1.03, accuracy: 1e-9)
        // One second of frames later, one second later.
        XCTAssertEqual(try XCTUnwrap(t.heard(frame: 1920 + 48000)), 101 - 0.02 + 1.03, accuracy: 1e-9)
        XCTAssertEqual(t.heardIfSynced(at: 100), 100 - 0.02 + 1.03, accuracy: 1e-9)
    }

    func testReadsAreOneChunkApartFromTheSync() throws {
        var t = SnapcastTiming(rate: 48000, chunkMs: 20, bufferMs: 1000)
        t.synced(frame: 0, at: 10)
        XCTAssertEqual(t.consumed(by: 10), 960)  // the sync chunk itself
        XCTAssertEqual(t.consumed(by: 10.0199), 960)
        XCTAssertEqual(t.consumed(by: 10.0201), 1920)
        XCTAssertEqual(t.consumed(by: 9), 0)
        XCTAssertEqual(try XCTUnwrap(t.readTime(ofChunkAt: 960 * 5)), 10.1, accuracy: 1e-9)
    }

    func testAReadMoreThanAChunkLateResyncs() {
        var t = SnapcastTiming(rate: 48000, chunkMs: 20, bufferMs: 1000)
        t.synced(frame: 0, at: 10)
        // Chunk 3 is due at 10.06: sent within a chunk of that it is only late, not a resync.
        XCTAssertFalse(t.resyncs(chunkAt: 2880, sentAt: 10.05))
        XCTAssertFalse(t.resyncs(chunkAt: 2880, sentAt: 10.079))
        XCTAssertTrue(t.resyncs(chunkAt: 2880, sentAt: 10.081))
    }
}
