import StorekeeperCore

/// The one error shape every front door answers with: `{"error": {"code", "message", ...}}`,
/// the dots being the error's `details` (app-store-api's `errorCode`, `attempts`, ...).
struct ErrorBody {
    let error: FunctionError

    init(_ error: FunctionError) {
        self.error = error
    }

    /// The error object alone, for answers that carry it beside fields of their own.
    func object() -> [UInt8] {
        var object = JSONObjectBuilder()
        object.add("code", error.code)
        object.add("message", error.message)
        for detail in error.details {
            switch detail.value {
            case .string(let text): object.add(detail.name, text)
            case .integer(let number): object.add(detail.name, rawJSON: Array(String(number).utf8))
            case .boolean(let flag): object.add(detail.name, flag)
            }
        }
        return object.build()
    }

    func encoded() -> [UInt8] {
        var answer = JSONObjectBuilder()
        answer.add("error", rawJSON: object())
        return answer.build()
    }
}
