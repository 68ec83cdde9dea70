/// A function's own JSON request object.
///
/// `fields` lists every accepted top-level field so `FunctionRequest.decode` can reject an
/// unknown one by name: a misspelt optional field would otherwise be silently ignored.
public protocol RequestBody: Decodable {
    /// Every accepted top-level field name, optional ones included.
    static var fields: Set<String> { get }
}
