import Foundation
import SnapcastOutput
import TalkingClockCore
import XCTest

final class StreamConverterTests: XCTestCase {
    private func convert(_ input: [Int16], from: StreamFormat, to: StreamFormat, pieces: Int = 7) -> [Int16] {
        var converter = StreamConverter(from: from, to: to)
        var out: [Int16] = []
        // Fed in uneven pieces, as a session writes: the result must not depend on them.
        let frames = input.count / from.channels
        var at = 0
        var piece = 1
        while at < frames {
            let n = min(frames - at, piece * 37)
            input.withUnsafeBufferPointer { converter.push(UnsafeBufferPointer(rebasing: $0[(at * from.channels)..<((at + n) * from.channels)])) }
            converter.pull(into: &out)
            at += n
            piece = piece % pieces + 1
        }
        return out
    }

    func testEqualRatesAreCopiedExactly() {
        let format = StreamFormat(sampleRate: 48000, channels: 2)
        let input = (0..<9600).map { Int16(truncatingIfNeeded: $0 &* 7919) }
        XCTAssertEqual(convert(input, from: format, to: format), input)
    }

    func testMonoIsCopiedToEveryChannelAndStereoAveragedToMono() {
        let mono = StreamFormat(sampleRate: 48000, channels: 1)
        let stereo = StreamFormat(sampleRate: 48000, channels: 2)
        XCTAssertEqual(convert([1, -2, 300], from: mono, to: stereo), [1, 1, -2, -2, 300, 300])
        XCTAssertEqual(convert([100, 300, -5, -7], from: stereo, to: mono), [200, -6])
    }

    /// 22 050 → 48 000 Hz: a 1 kHz tone keeps its frequency and level, and an input frame lands
    /// exactly at input · 48000/22050 (the filter is symmetric: no delay to account for).
    func testResamplingKeepsFrequencyLevelAndPosition() {
        let from = StreamFormat(sampleRate: 22050, channels: 1)
        let to = StreamFormat(sampleRate: 48000, channels: 2)
        let seconds = 1.0
        let n = Int(seconds * 22050)
        let tone = (0..<n).map { Int16((16000 * sin(2 * Double.pi * 1000 * Double($0) / 22050)).rounded()) }
        let out = convert(tone, from: from, to: to)
        // Every output frame the input determines (all but the held-back tail).
        XCTAssertGreaterThan(out.count / 2, Int(seconds * 48000) - 80)
        let left = stride(from: 0, to: out.count, by: 2).map { Double(out[$0]) }
        XCTAssertEqual(left, stride(from: 1, to: out.count, by: 2).map { Double(out[$0]) })
        // Level over the middle (away from the edges): 16000/√2.
        let middle = left[4800..<(left.count - 4800)]
        let rms = sqrt(middle.map { $0 * $0 }.reduce(0, +) / Double(middle.count))
        XCTAssertEqual(rms, 16000 / 2.0.squareRoot(), accuracy: 16000 * 0.002)
        // Frequency: rising zero crossings over the middle.
        var crossings = 0
        for i in middle.indices.dropFirst() where middle[i - 1] < 0 && middle[i] >= 0 { crossings += 1 }
        let duration = Double(middle.count) / 48000
        XCTAssertEqual(Double(crossings) / duration, 1000, accuracy: 2)
        // Against the tone at output times: the interpolation error is small everywhere in the middle.
        var worst = 0.0
        for o in 4800..<(left.count - 4800) {
            let t = Double(o) / 48000
            worst = max(worst, abs(left[o] - 16000 * sin(2 * Double.pi * 1000 * t)))
        }
        XCTAssertLessThan(worst, 16000 * 0.002, "the resampled tone strays from the tone by \(worst)")
    }

    func testAClickLandsWhereItsTimeSays() {
        let from = StreamFormat(sampleRate: 22050, channels: 1)
        let to = StreamFormat(sampleRate: 48000, channels: 1)
        var input = [Int16](repeating: 0, count: 4410)
        input[2205] = 20000  // 0.1 s
        let out = convert(input, from: from, to: to)
        let peak = out.indices.max { abs(Int(out[$0])) < abs(Int(out[$1])) }!
        XCTAssertEqual(Double(peak), 4800, accuracy: 1)
        let converter = StreamConverter(from: from, to: to)
        XCTAssertEqual(converter.outputPosition(ofInput: 2205), 4800, accuracy: 1e-9)
    }
}
