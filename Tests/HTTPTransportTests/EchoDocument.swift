import Foundation
import StorekeeperCore

/// What the test server's /echo answers: the request as the server received it.
struct EchoDocument: Decodable {
    let method: String
    let path: String
    /// [name, value] pairs, in the order received, names as sent.
    let headers: [[String]]
    let body: String
    let client_port: Int

    init(_ response: HTTPResponse) throws {
        self = try JSONDecoder().decode(EchoDocument.self, from: Data(response.body))
    }

    var bodyBytes: [UInt8]? { Data(base64Encoded: body).map { [UInt8]($0) } }

    /// Values of the header `name` (case-insensitive), in order.
    func values(_ name: String) -> [String] {
        headers.filter { $0.first?.lowercased() == name.lowercased() }.compactMap { $0.last }
    }

    var headerNames: [String] { headers.compactMap(\.first) }
}
