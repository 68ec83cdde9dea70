import FoundationEssentials

/// Apple's signed payloads carry dates as integer milliseconds since 1970. Models store that
/// integer (so it round-trips exactly and no decoder date strategy is needed) and convert here.
enum AppStoreMilliseconds {
    static func date(_ milliseconds: Int64?) -> Date? {
        milliseconds.map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }

    /// `nil` for a date that does not fit in Int64 milliseconds, rather than a trap.
    static func milliseconds(_ date: Date?) -> Int64? {
        guard let date else { return nil }
        return Int64(exactly: (date.timeIntervalSince1970 * 1000).rounded())
    }

    /// StoreKit Testing in Xcode writes dates as fractional milliseconds
    /// (`"purchaseDate": 1697679936049.7297`); the models hold Apple's integers. Every
    /// `...Date` member with a fraction is truncated, as Apple's Python library reads it
    /// (1697679936049); anything else is left as it is.
    static func truncatingFractionalDates(_ json: [UInt8]) -> [UInt8] {
        guard let value = try? StrictJSON.parse(json) else { return json }
        return truncatingFractionalDates(value, member: nil).encoded()
    }

    private static func truncatingFractionalDates(_ value: StrictJSON, member: String?) -> StrictJSON {
        switch value {
        case .number(let literal) where member?.hasSuffix("Date") == true && Int64(literal) == nil:
            guard let number = Double(literal), number.isFinite, let whole = Int64(exactly: number.rounded(.towardZero)) else {
                return value
            }
            return .number(String(whole))
        case .array(let elements):
            return .array(elements.map { truncatingFractionalDates($0, member: nil) })
        case .object(let members):
            return .object(members.map { ($0.name, truncatingFractionalDates($0.value, member: $0.name)) })
        default:
            return value
        }
    }
}
