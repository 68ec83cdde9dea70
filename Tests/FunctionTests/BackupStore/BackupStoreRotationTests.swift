import Foundation
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
            // Its two newest, everything else untouched, no temporary file left.
            #expect(Self.names(in: folder) == (foreign + [lookalike] + Array(made.suffix(2))).sorted())
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
