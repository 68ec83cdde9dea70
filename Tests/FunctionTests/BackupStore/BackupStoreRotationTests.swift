import Foundation
import SQLiteStore
import Testing

extension BackupStoreBinaryTests {
    /// Which files backup-store writes and deletes, and what it refuses, through the binary.
    @Suite("backup-store: rotation and refusals")
    struct Rotation {
        static func names(in folder: String) -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
        }

        @Test func keepsTheNewestOfItsOwnCopiesAndDeletesNothingElse() throws {
            let deployment = try Deployment(keep: 2)
            defer { deployment.remove() }
            let folder = deployment.backups
            // Not its copies: another name, a near miss of its pattern, a folder with its pattern.
            let foreign = ["notes.txt", "storekeeper-latest.db", "storekeeper-20260101T000000.000Z.db.bak", "storekeeper-2026.db"]
            for name in foreign { FileManager.default.createFile(atPath: folder + "/" + name, contents: Data("mine".utf8)) }
            let lookalike = "storekeeper-20200101T000000.000Z.db"
            try FileManager.default.createDirectory(atPath: folder + "/" + lookalike, withIntermediateDirectories: false)
            // What a run killed long ago left (deleted), and a run copying right now (kept).
            let stale = [".storekeeper-20200101T000000.000Z.db.tmp-1f", ".storekeeper-20200101T000000.000Z.db.tmp-1f-journal"]
            let running = ".storekeeper-\(Self.stamp(Date()))Z.db.tmp-2e"
            for name in stale + [running, ".other.tmp-3d"] { FileManager.default.createFile(atPath: folder + "/" + name, contents: nil) }

            var made: [String] = []
            for _ in 0..<3 {
                let run = try deployment.backup()
                #expect(run.exit == 0 && run.answer["check"] as? String == "ok" && run.answer["kept"] as? Int == 2, "\(run)")
                let file = try #require(run.answer["file"] as? String)
                #expect(file.hasPrefix(folder + "/storekeeper-") && file.hasSuffix("Z.db"))
                #expect(run.answer["bytes"] as? Int == (try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int))
                made.append((file as NSString).lastPathComponent)
                if made.count == 3 { #expect(run.answer["removed"] as? [String] == [made[0]]) }
            }
            // Copies are private to the owner: they hold everything the store does.
            let mode = try #require(try FileManager.default.attributesOfItem(atPath: folder + "/" + made[2])[.posixPermissions] as? Int)
            #expect(mode == 0o600)
            // Its two newest, everything else untouched, no temporary file of its own left.
            #expect(Self.names(in: folder) == (foreign + [lookalike, running, ".other.tmp-3d"] + Array(made.suffix(2))).sorted())
        }

        /// 20261202T031500.250 for a date, as backup-store names its copies (without the Z).
        static func stamp(_ date: Date) -> String {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "yyyyMMdd'T'HHmmss.SSS"
            return formatter.string(from: date)
        }

        /// A disk that fills up: a 64 KB tmpfs, where the machine lets the test mount one.
        @Test func aFullDiskIsARetryAndLeavesNothingBehind() throws {
            let deployment = try Deployment()
            defer { deployment.remove() }
            let small = deployment.folder.appendingPathComponent("small").path
            try FileManager.default.createDirectory(atPath: small, withIntermediateDirectories: true)
            guard Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", small]) else {
                print("backup-store full-disk test: skipped: cannot mount a tmpfs here (it needs root with CAP_SYS_ADMIN)")
                return
            }
            defer { _ = Self.run("/bin/umount", [small]) }
            do {
                let store = try SQLiteStore(path: deployment.storePath)
                for index in 0..<60 { try store.set("filler-\(index)", [UInt8](repeating: 1, count: 4_000), expiresIn: nil) }
            }
            let full = try deployment.backup(environment: ["STORE_BACKUP_DIR": small])
            #expect(full.exit == 75 && (full.answer["error"] as? [String: Any])?["code"] as? String == "backup_no_space", "\(full)")
            #expect(Self.names(in: small) == [])
            // The same store fits elsewhere: the fault was the disk, not the store.
            #expect(try deployment.backup().exit == 0)
        }

        static func run(_ executable: String, _ arguments: [String]) -> Bool {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            process.standardError = FileHandle.nullDevice
            guard (try? process.run()) != nil else { return false }
            process.waitUntilExit()
            return process.terminationStatus == 0
        }

        @Test func refusesAFileThatExistsAndFoldersItCannotWrite() throws {
            let deployment = try Deployment()
            defer { deployment.remove() }
            let existing = deployment.folder.appendingPathComponent("existing.db").path
            FileManager.default.createFile(atPath: existing, contents: Data("keep me".utf8))
            let exists = try deployment.backup(["file": existing])
            #expect(exists.exit == 65 && (exists.answer["error"] as? [String: Any])?["code"] as? String == "invalid_request", "\(exists)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: existing)) == Data("keep me".utf8))

            // A folder that cannot hold files (a regular file on the path): the request's fault
            // for a requested file, our configuration for STORE_BACKUP_DIR.
            let underFile = try deployment.backup(["file": existing + "/copy.db"])
            #expect(underFile.exit == 65, "\(underFile)")
            let badFolder = try deployment.backup(environment: ["STORE_BACKUP_DIR": existing + "/backups"])
            #expect(badFolder.exit == 78 && (badFolder.answer["error"] as? [String: Any])?["code"] as? String == "backup_folder_unusable",
                    "\(badFolder)")

            // A requested file: written there, outside the rotation.
            let exact = deployment.folder.appendingPathComponent("before-upgrade.db").path
            let made = try deployment.backup(["file": exact])
            #expect(made.exit == 0 && made.answer["file"] as? String == exact && made.answer["kept"] == nil, "\(made)")
            #expect(Self.names(in: deployment.backups) == [])

            // A restore of something that is not a store changes nothing and is the request's fault.
            let notAStore = try deployment.backup(["restore": existing])
            #expect(notAStore.exit == 65, "\(notAStore)")
            let missing = try deployment.backup(["restore": existing + ".missing"])
            #expect(missing.exit == 65, "\(missing)")
        }
    }
}
