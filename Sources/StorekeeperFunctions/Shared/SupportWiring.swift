import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

/// What the support functions (grant-entitlement, revoke-grant, delete-customer,
/// merge-customers) share: the store, the clock every audit line is dated by, who is calling
/// (the audit trail's actor), and the checks on the user ids they take.
struct SupportWiring {
    static let variables: [SettingUse] = [.declared(RuntimeSettings.storeURL)]

    /// A user id becomes part of store keys: it must be non-empty, short and printable.
    static let userIdLimit = 256

    let context: FunctionContext

    func store() throws -> any KeyValueStore {
        try context.adapters.store()
    }

    /// The operation's who, when and why.
    func action(for call: FunctionRequest, reason: String?) -> SupportAction {
        SupportAction(actor: Self.actor(of: call), date: context.clock.now().millisecondsSince1970, reason: reason)
    }

    /// The name of the token the caller presented: the audit trail's "who" (`admin` for
    /// STOREKEEPER_ADMIN_TOKEN, a STOREKEEPER_TOKENS name, or `local` for a direct call). The
    /// runtime has checked the token before the handler runs, so an internal function always
    /// has a caller; "unknown" is only what a call without one would be recorded as.
    static func actor(of call: FunctionRequest) -> String {
        call.caller?.name ?? "unknown"
    }

    /// A reason the audit trail can keep: required, non-empty, at most 1000 characters.
    static func reason(_ text: String?) throws -> String {
        guard let text, !text.allSatisfy(\.isWhitespace) else {
            throw FunctionError.badInput(message: "reason is required: the audit trail says why")
        }
        guard text.count <= 1000 else { throw FunctionError.badInput(message: "reason is longer than 1000 characters") }
        return text
    }

    static func checkUserId(_ userId: String, field: String) throws {
        guard !userId.isEmpty, userId.utf8.count <= userIdLimit,
              userId.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F }) else {
            throw FunctionError.badInput(message: "\(field) must be a user id: 1 to \(userIdLimit) bytes, no spaces or control characters")
        }
    }
}
