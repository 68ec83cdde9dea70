/// An app's answers to Apple's realtime retention requests (the app's `retention` section):
/// rules tried in order, the first whose conditions hold answers; the default message
/// answers when none does, and whenever an answer cannot be given in time or at all.
///
/// Every message identifier names a message uploaded and approved in advance (Upload
/// Message); Apple shows nothing it has not approved.
public struct CatalogRetention: Sendable, Equatable {
    /// The message answered when no rule applies, a rule cannot be evaluated, the store
    /// fails, the offer key is missing or the time budget runs out.
    public var defaultMessageIdentifier: String
    /// How long an answer may take (checked between steps) before the default answers.
    public var timeBudgetMilliseconds: Int64
    public var rules: [Rule]

    public static let defaultTimeBudgetMilliseconds: Int64 = 250

    public init(defaultMessageIdentifier: String, timeBudgetMilliseconds: Int64 = defaultTimeBudgetMilliseconds,
                rules: [Rule]) {
        self.defaultMessageIdentifier = defaultMessageIdentifier
        self.timeBudgetMilliseconds = timeBudgetMilliseconds
        self.rules = rules
    }

    /// One rule: what it matches and what it answers.
    public struct Rule: Sendable, Equatable {
        /// Unique within the app; logged with each answer.
        public var name: String
        /// The subscriptions (the request's `productId`) it applies to; nil: any.
        public var products: [String]?
        /// Device locales it applies to (`en-US`, or a language, `en`); nil: any.
        public var locales: [String]?
        /// What the customer's stored history must say; nil members are not asked.
        public var history: HistoryConditions
        public var answer: Answer

        public init(name: String, products: [String]? = nil, locales: [String]? = nil,
                    history: HistoryConditions = HistoryConditions(), answer: Answer) {
            self.name = name
            self.products = products
            self.locales = locales
            self.history = history
            self.answer = answer
        }
    }

    /// Conditions read from the subscription's stored record (never from Apple).
    public struct HistoryConditions: Sendable, Equatable {
        /// Days since the subscription began (its first purchase), at the request's signedDate.
        public var subscribedDaysAtLeast: Int64?
        public var subscribedDaysAtMost: Int64?
        /// Whether a promotional or win-back offer was ever redeemed on the subscription.
        public var offerRedeemed: Bool?

        public init(subscribedDaysAtLeast: Int64? = nil, subscribedDaysAtMost: Int64? = nil, offerRedeemed: Bool? = nil) {
            self.subscribedDaysAtLeast = subscribedDaysAtLeast
            self.subscribedDaysAtMost = subscribedDaysAtMost
            self.offerRedeemed = offerRedeemed
        }

        /// Whether the rule needs the customer's record at all.
        public var isEmpty: Bool { subscribedDaysAtLeast == nil && subscribedDaysAtMost == nil && offerRedeemed == nil }
    }

    /// What a rule answers, in the realtime response's terms.
    public enum Answer: Sendable, Equatable {
        case message(messageIdentifier: String)
        /// A switch-plan option to `productId` (a subscription of the same group).
        case alternateProduct(messageIdentifier: String, productId: String)
        /// A promotional offer of the subscription the customer is viewing, signed as asked.
        case promotionalOffer(messageIdentifier: String, offerId: String, signature: OfferSignatureVersion)
    }

    /// Which promotional offer signature the answer carries.
    public enum OfferSignatureVersion: String, Sendable, Equatable, CaseIterable {
        /// `promotionalOfferSignatureV2`: the compact JWS (Apple's recommendation).
        case v2 = "V2"
        /// `promotionalOfferSignatureV1`: the original ECDSA signature and its fields.
        case v1 = "V1"
    }
}
