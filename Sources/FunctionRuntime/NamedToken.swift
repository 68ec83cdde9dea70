/// One bearer token the deployment accepts over HTTP: its name (who, for the audit trail), its
/// scope (what) and its value (a secret: never logged, never in an answer, not even in an
/// error about the setting).
///
/// `STOREKEEPER_ADMIN_TOKEN` is the token named `admin` with scope admin; `STOREKEEPER_TOKENS`
/// adds others as comma-separated `name:scope:token`. A name may appear twice (two values valid
/// at once while a token is rotated, with the same scope), never three times; the admin token's
/// previous value is `admin:admin:<old>` there.
public struct NamedToken: Sendable {
    public let name: String
    public let scope: AccessScope
    let bytes: [UInt8]

    public init(name: String, scope: AccessScope, token: String) {
        self.name = name
        self.scope = scope
        self.bytes = Array(token.utf8)
    }

    public var caller: Caller { Caller(name: name, scope: scope) }

    /// Shorter tokens are guessable; the admin token is left as configured.
    static let minimumLength = 16
    static let maximumNameLength = 64

    /// Parses `STOREKEEPER_TOKENS`. Problems name the entry by position, never by value.
    static func parseList(_ text: String) throws(SettingProblem) -> [NamedToken] {
        var tokens: [NamedToken] = []
        for (index, entry) in text.split(separator: ",", omittingEmptySubsequences: false).enumerated() {
            let entry = entry.trimmedOfSpaces
            guard !entry.isEmpty else { throw SettingProblem("entry \(index + 1) is empty (name:scope:token, comma-separated)") }
            tokens.append(try parse(entry, position: index + 1))
        }
        return tokens
    }

    private static func parse(_ entry: String, position: Int) throws(SettingProblem) -> NamedToken {
        let parts = entry.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw SettingProblem("entry \(position) is not name:scope:token") }
        let name = String(parts[0])
        guard !name.isEmpty, name.count <= maximumNameLength, name.utf8.allSatisfy(isNameByte) else {
            throw SettingProblem("entry \(position): the name must be 1 to \(maximumNameLength) of A-Z a-z 0-9 . _ -")
        }
        guard let scope = AccessScope(rawValue: String(parts[1])) else {
            // The entry is named by position only: a misordered entry may have its token first.
            throw SettingProblem("entry \(position): the scope must be read, support or admin")
        }
        guard parts[2].utf8.count >= minimumLength else {
            throw SettingProblem("entry \(position): the token must be at least \(minimumLength) characters")
        }
        return NamedToken(name: name, scope: scope, token: String(parts[2]))
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"): true
        default: false
        }
    }

    /// The whole set a deployment accepts, checked together: a name at most twice and with one
    /// scope, no value under two names (which name would the audit trail say?).
    static func checkSet(_ tokens: [NamedToken]) throws(SettingProblem) {
        var byName: [String: [NamedToken]] = [:]
        for token in tokens { byName[token.name, default: []].append(token) }
        for (name, entries) in byName.sorted(by: { $0.key < $1.key }) {
            guard entries.count <= 2 else { throw SettingProblem("names \(name) \(entries.count) times; two at most (rotation)") }
            guard Set(entries.map(\.scope)).count == 1 else { throw SettingProblem("gives \(name) two scopes") }
        }
        for (index, token) in tokens.enumerated() {
            for other in tokens[(index + 1)...] where other.bytes == token.bytes {
                throw SettingProblem("has one token under two entries (\(token.name), \(other.name))")
            }
        }
    }
}
