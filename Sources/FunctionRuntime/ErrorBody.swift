/// The one error shape every front door answers with: `{"error": {"code", "message"}}`.
struct ErrorBody: Encodable {
    struct Detail: Encodable {
        let code: String
        let message: String
    }

    let error: Detail

    init(_ error: FunctionError) {
        self.error = Detail(code: error.code, message: error.message)
    }

    func encoded() -> [UInt8] {
        // Two strings cannot fail to encode; the fallback only keeps this path free of a forced try.
        (try? RuntimeJSON.encode(self)) ?? Array(#"{"error":{"code":"internal_error","message":"internal error"}}"#.utf8)
    }
}
