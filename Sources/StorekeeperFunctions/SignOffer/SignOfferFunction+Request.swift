import FoundationEssentials
import FunctionRuntime
import StorekeeperCore

extension SignOfferFunction {
    public struct Request: RequestBody {
        public enum CodingKeys: String, CodingKey, CaseIterable {
            case kind, productId, offerId, appAccountToken, transactionId, allowIntroductoryOffer, decideEligibility,
                 winBackOffer, userId, request, bundleId
        }
        var kind: String
        var productId: String?
        var offerId: String?
        var appAccountToken: String?
        var transactionId: String?
        var allowIntroductoryOffer: Bool?
        var decideEligibility: Bool?
        var winBackOffer: Bool?
        var userId: String?
        var request: JSONValue?
        var bundleId: String?
    }

    /// The kinds, as the request names them.
    enum Kind: String, CaseIterable {
        case promotionalOffer, promotionalOfferV2, introductoryOfferEligibility, advancedCommerceInApp

        /// The fields the kind takes besides `kind` and `bundleId`.
        var fields: Set<Request.CodingKeys> {
            switch self {
            case .promotionalOffer: [.productId, .offerId, .appAccountToken, .winBackOffer, .userId]
            case .promotionalOfferV2: [.productId, .offerId, .transactionId, .winBackOffer, .userId]
            case .introductoryOfferEligibility: [.productId, .allowIntroductoryOffer, .transactionId, .decideEligibility, .userId]
            case .advancedCommerceInApp: [.request]
            }
        }
    }

    /// Apple's identifiers are short and printable; none may hold the separator of the
    /// original signature's message, which would let one field pass for two.
    static let identifierLimit = 255

    static func identifier(_ value: String?, field: Request.CodingKeys) throws -> String {
        guard let value else { throw FunctionError.badInput(message: "\(field.stringValue) is required") }
        guard !value.isEmpty, value.utf8.count <= identifierLimit,
              value.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F && $0.value != 0x2063 }) else {
            throw FunctionError.badInput(message:
                "\(field.stringValue) must be 1 to \(identifierLimit) bytes, no spaces, control characters or U+2063")
        }
        return value
    }
}

extension SignOfferFunction.Request {
    typealias Kind = SignOfferFunction.Kind

    /// The kind, with every field it does not take refused by name.
    func checkedKind() throws -> Kind {
        guard let kind = Kind(rawValue: kind) else {
            throw FunctionError.badInput(message: "kind must be one of \(Kind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if let field = given.subtracting(kind.fields).map(\.stringValue).sorted().first {
            throw FunctionError.badInput(message: "kind \(kind.rawValue) takes no \(field)")
        }
        if userId != nil, winBackOffer != true, decideEligibility != true {
            throw FunctionError.badInput(message: "userId is read by the checks only (winBackOffer, decideEligibility)")
        }
        return kind
    }

    private var given: Set<CodingKeys> {
        let present: [(CodingKeys, Bool)] = [
            (.productId, productId != nil), (.offerId, offerId != nil), (.appAccountToken, appAccountToken != nil),
            (.transactionId, transactionId != nil), (.allowIntroductoryOffer, allowIntroductoryOffer != nil),
            (.decideEligibility, decideEligibility != nil), (.winBackOffer, winBackOffer != nil),
            (.userId, userId != nil), (.request, request != nil),
        ]
        return Set(present.filter(\.1).map(\.0))
    }

    /// The app account token as the original signature's message takes it: a UUID,
    /// lowercase, or empty when the app sets none.
    func lowercasedAppAccountToken() throws -> String {
        guard let token = appAccountToken, !token.isEmpty else { return "" }
        guard let uuid = UUID(uuidString: token) else {
            throw FunctionError.badInput(message: "appAccountToken must be a UUID (or absent)")
        }
        return uuid.uuidString.lowercased()
    }

    /// Who the eligibility checks read: `userId`, else the transaction (any of the
    /// customer's, or their appTransactionId), else the app account token.
    func customerKeys() throws -> [CustomerLookup.Key] {
        if let userId {
            try SupportWiring.checkUserId(userId, field: "userId")
            return [.user(userId)]
        }
        if let transactionId {
            let id = try SignOfferFunction.identifier(transactionId, field: .transactionId)
            return [.transactionId(id), .appTransactionId(id)]
        }
        if let token = appAccountToken, !token.isEmpty { return [.appAccountToken(try lowercasedAppAccountToken())] }
        throw FunctionError.badInput(message: "the eligibility checks need the customer: give userId, transactionId or appAccountToken")
    }
}
