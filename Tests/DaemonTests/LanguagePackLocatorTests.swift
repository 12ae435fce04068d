import Daemon
import Foundation
import TalkingClockCore
import XCTest

/// A language with no `pack` set speaks with its own pack: "default" for en-US, the tag for the
/// others; a missing one is an error that names the language and how to get its pack.
final class LanguagePackLocatorTests: XCTestCase {
    func testTheLanguageChoosesThePackUnlessOneIsSet() {
        var config = Config()
        XCTAssertEqual(config.pack, "default")
        config.language = "de"
        XCTAssertEqual(config.pack, "de")
        config.language = "en-GB"
        XCTAssertEqual(config.pack, "en-GB")
        config.pack = "mine"
        XCTAssertEqual(config.pack, "mine", "a chosen pack stays, whatever the language")
        config.language = "ru"
        XCTAssertEqual(config.pack, "mine")
        XCTAssertEqual(SpokenLanguages.defaultPack(of: "en-US"), "default")
        XCTAssertEqual(SpokenLanguages.defaultPack(of: "pl"), "pl")
    }

    func testAMissingLanguagePackSaysHowToInstallBuildOrRecordIt() {
        let environment = ["HOME": "/nonexistent", "XDG_DATA_DIRS": "/nonexistent/data"]
        // A name no checkout and no system directory holds: the error text is what is checked.
        guard case .failure(let error) = PackLocator.locate("xx-not-a-pack", environment: environment) else {
            return XCTFail("found a pack that does not exist")
        }
        XCTAssertFalse(error.description.contains("for language"), error.description)

        let missing = PackLocator.LocateError(pack: "de", searched: ["/a/packs", "/b/packs"])
        let text = missing.description
        XCTAssertTrue(text.hasPrefix("No sound pack for language de was found"), text)
        XCTAssertTrue(text.contains("/a/packs, /b/packs"), text)
        XCTAssertTrue(text.contains("scripts/make-pack --language de"), text)
        XCTAssertTrue(text.contains("scripts/install"), text)
        XCTAssertTrue(text.contains("record-pack ~/.local/share/talking-clock/packs/de --language de"), text)

        let named = PackLocator.LocateError(pack: "mine", searched: ["/a/packs"])
        XCTAssertTrue(named.description.hasPrefix("No sound pack named 'mine' was found"), named.description)
    }
}
