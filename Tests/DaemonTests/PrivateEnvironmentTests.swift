import ConfigFiles
import Daemon
import Foundation
import Glibc
import TestSupport
import XCTest

/// Issue 22, item 9: no test may read the user's own config, packs, state or control socket. With
/// `chime = "westminster"` in ~/.config/talking-clock/config.toml nine tests failed. Every test
/// process now starts in a private environment (Sources/TestEnvironment), so what the clock
/// resolves by default — as every test and every program a test starts sees it — is empty and
/// private, whatever the user has.
final class PrivateEnvironmentTests: XCTestCase {
    var passwdHome: String { String(cString: getpwuid(getuid())!.pointee.pw_dir) }
    var root: String { PrivateEnvironment.root.path }

    func testTheDefaultPathsAreInsideThePrivateDirectoryNotTheUsersHome() {
        let config = ConfigFile.defaultConfigPath() ?? ""
        let state = StateStore.defaultDirectory().path
        let packs = PackLocator.searchPaths().first?.path ?? ""
        for path in [config, state, packs] {
            XCTAssertTrue(path.hasPrefix(root + "/"), "\(path) is not inside the private test directory \(root)")
            XCTAssertFalse(path.hasPrefix(passwdHome + "/"), "\(path) is in the user's own home \(passwdHome)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: config), "a test process sees a config file: \(config)")
        XCTAssertNotEqual(UserPaths.home(), passwdHome, "HOME is the user's own")
    }

    func testEveryBaseDirectoryIsSetPrivateAndEmpty() throws {
        let environment = ProcessInfo.processInfo.environment
        for variable in ["HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR"] {
            let value = try XCTUnwrap(environment[variable], "\(variable) is not set")
            XCTAssertTrue(value.hasPrefix(root + "/"), "\(variable)=\(value) is not inside \(root)")
            var info = stat()
            XCTAssertEqual(stat(value, &info), 0, "\(variable)=\(value) does not exist")
            XCTAssertEqual(info.st_mode & 0o777, 0o700, "\(variable)=\(value) is open to other users")
            XCTAssertEqual(info.st_uid, getuid(), "\(variable)=\(value) is not ours")
        }
        // The runtime directory is where the default control socket lives: a test must never reach a
        // daemon the user runs.
        XCTAssertEqual(ControlPaths.socket(), environment["XDG_RUNTIME_DIR"]! + "/talking-clock/control.sock")
        XCTAssertNotEqual(PrivateEnvironment.userHome, environment["HOME"])
    }

    /// A program a test starts the plain way (Process with the inherited environment) sees the
    /// private directories too.
    func testAChildProcessInheritsThePrivateEnvironment() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "printf '%s\\n' \"$HOME\" \"$XDG_CONFIG_HOME\""]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(text, "\(root)/home\n\(root)/config\n")
    }
}
