/// Reads a request the CGI way (RFC 3875): the method, path, query and headers come from
/// meta-variables, the body is exactly `CONTENT_LENGTH` bytes of stdin. A FastCGI request is
/// read the same way from its parameters and FCGI_STDIN, with the function's own route as its
/// path (`path`), whatever SCRIPT_NAME or PATH_INFO the web server sent.
enum CGIRequest {
    static func read(environment: [String: String], input: any InputSource, door: FrontDoor = .cgi,
                     path fixedPath: String? = nil) throws -> FunctionRequest {
        if door == .fastcgi, environment["CONTENT_LENGTH"] == nil {
            // FCGI_STDIN ends with an empty record: a web server that sends no CONTENT_LENGTH
            // (a minimal fastcgi_param set) still delimits the body.
            let body = try input.read(limit: RuntimeLimits.maxBodyBytes + 1)
            guard body.count <= RuntimeLimits.maxBodyBytes else {
                throw FunctionError.payloadTooLarge(message: "the body is larger than \(RuntimeLimits.maxBodyBytes) bytes")
            }
            var request = try read(environment: environment.merging(["CONTENT_LENGTH": String(body.count)]) { $1 },
                                   input: BufferedBody(body), door: door, path: fixedPath)
            if body.isEmpty { request.headers["content-length"] = nil }
            return request
        }
        let contentLength = try self.contentLength(environment["CONTENT_LENGTH"])
        if contentLength > RuntimeLimits.maxBodyBytes {
            // Refused before reading a byte: the limit must hold against a lying client too.
            throw FunctionError.payloadTooLarge(message: "the body is larger than \(RuntimeLimits.maxBodyBytes) bytes")
        }
        var body: [UInt8] = []
        if contentLength > 0 {
            body = try input.read(limit: contentLength)
            if body.count < contentLength {
                throw FunctionError.badInput(message: "the body is shorter than CONTENT_LENGTH")
            }
        }
        var headers: [String: String] = [:]
        for (name, value) in environment where name.hasPrefix("HTTP_") {
            headers[headerName(name.dropFirst(5))] = value
        }
        if let type = environment["CONTENT_TYPE"], !type.isEmpty { headers["content-type"] = type }
        if contentLength > 0 { headers["content-length"] = String(contentLength) }
        let path = fixedPath ?? ((environment["SCRIPT_NAME"] ?? "") + (environment["PATH_INFO"] ?? ""))
        return FunctionRequest(
            frontDoor: door,
            method: environment["REQUEST_METHOD"] ?? "GET",
            path: path.isEmpty ? "/" : path,
            query: try FormURLEncoding.parameters(environment["QUERY_STRING"] ?? ""),
            headers: headers,
            body: body
        )
    }

    /// Digits only; absent or empty means no body (RFC 3875 §4.1.2).
    static func contentLength(_ value: String?) throws -> Int {
        guard let value, !value.isEmpty else { return 0 }
        guard value.utf8.count <= 18, value.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              let length = Int(value) else {
            throw FunctionError.badInput(message: "CONTENT_LENGTH is not a number")
        }
        return length
    }

    /// `HTTP_X_FORWARDED_FOR` → `x-forwarded-for`.
    private static func headerName(_ variable: Substring) -> String {
        String(variable.lowercased().map { $0 == "_" ? "-" : $0 })
    }
}

/// A body already read, handed to `CGIRequest.read` as its input.
private final class BufferedBody: InputSource {
    private var bytes: [UInt8]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    func read(limit: Int) throws -> [UInt8] {
        let taken = Array(bytes.prefix(limit))
        bytes.removeFirst(taken.count)
        return taken
    }
}
