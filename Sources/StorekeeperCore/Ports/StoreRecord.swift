import FoundationEssentials

/// A value kept in the key-value store, and how it is spelt there. Its bytes are part of the
/// store layout (`StoreLayout`): a type that changes them needs a layout migration.
///
/// The default spelling is JSON with sorted keys and unescaped slashes, so the same record is
/// always the same bytes. A type whose records were first written otherwise says so.
public protocol StoreRecord: Codable {
    /// The JSON options this type's records were written with.
    static var storeJSONFormatting: JSONEncoder.OutputFormatting { get }

    /// The bytes written to the store.
    func storeBytes() throws(StoreError) -> [UInt8]

    /// Reads a record written by `storeBytes()`.
    init(storeBytes: [UInt8]) throws(StoreError)
}

extension StoreRecord {
    public static var storeJSONFormatting: JSONEncoder.OutputFormatting { [.sortedKeys, .withoutEscapingSlashes] }

    public func storeBytes() throws(StoreError) -> [UInt8] {
        try jsonStoreBytes()
    }

    public init(storeBytes: [UInt8]) throws(StoreError) {
        try self.init(jsonStoreBytes: storeBytes)
    }

    /// The default spelling, for a type that adds to it (`EntitlementRecord`'s decoded-record cache).
    func jsonStoreBytes() throws(StoreError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = Self.storeJSONFormatting
        do {
            return Array(try encoder.encode(self))
        } catch {
            throw StoreError(.failed, "a \(Self.self) record does not encode: \(error)")
        }
    }

    init(jsonStoreBytes storeBytes: [UInt8]) throws(StoreError) {
        do {
            self = try JSONDecoder().decode(Self.self, from: Data(storeBytes))
        } catch {
            throw StoreError(.failed, "a stored \(Self.self) record does not decode: \(error)")
        }
    }
}
