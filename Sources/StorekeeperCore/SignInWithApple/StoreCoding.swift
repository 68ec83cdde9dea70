import FoundationEssentials

/// JSON in and out of the store for the Sign in with Apple records: sorted keys, and a
/// record that does not decode is a store failure, never a crash.
enum JSONDecoderFactory {
    static func decode<T: Decodable>(_ type: T.Type, _ bytes: [UInt8]) throws -> T {
        try JSONDecoder().decode(type, from: Data(bytes))
    }
}

enum StoreCoding {
    static func encode(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }

    static func decode<T: Decodable>(_ type: T.Type, _ bytes: [UInt8], key: String) throws(StoreError) -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(bytes))
        } catch {
            throw StoreError(.failed, "the record at \(key) does not decode")
        }
    }
}
