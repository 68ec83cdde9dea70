/// An event that cannot be applied to an entitlement (it lacks the ids that place it).
public struct EntitlementError: Error, Equatable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}
