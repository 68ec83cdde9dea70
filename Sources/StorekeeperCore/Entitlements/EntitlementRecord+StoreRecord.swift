import FoundationEssentials

extension EntitlementRecord: StoreRecord {
    /// Entitlement records were first written with slashes escaped; they stay so.
    public static var storeJSONFormatting: JSONEncoder.OutputFormatting { [.sortedKeys] }
}

extension EntitlementRecord: EventCarrying {}
