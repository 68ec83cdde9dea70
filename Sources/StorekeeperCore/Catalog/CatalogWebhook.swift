/// One entry of the catalog's `webhooks`: an endpoint deliver-events sends events to. The
/// secret is not in the file: `secretEnv` names the environment variable that holds it.
public struct CatalogWebhook: Sendable, Equatable {
    /// Names the endpoint everywhere (logs, status, replay-events, its state in the store).
    public var name: String
    public var url: String
    public var secretEnv: String
    /// nil: every type.
    public var types: Set<String>?
    /// nil: every environment.
    public var environments: Set<String>?
    public var format: WebhookEndpoint.Format

    public init(name: String, url: String, secretEnv: String, types: Set<String>? = nil,
                environments: Set<String>? = nil, format: WebhookEndpoint.Format = .json) {
        self.name = name
        self.url = url
        self.secretEnv = secretEnv
        self.types = types
        self.environments = environments
        self.format = format
    }

    /// A name store keys can carry: lowercase letters, digits, `-` and `_`, at most 64.
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64 && name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }

    /// An environment variable's name: `A-Z`, digits and `_`, not starting with a digit.
    static func isVariableName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
        return name.utf8.allSatisfy { byte in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "_")
        }
    }
}
