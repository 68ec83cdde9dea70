/// Size limits, fixed so a caller cannot make a one-shot process allocate without bound.
public enum RuntimeLimits {
    /// The largest request body (a direct JSON document, a decoded event body, a CGI body).
    public static let maxBodyBytes = 1 << 20
    /// The most read from stdin outside CGI: room for a base64 event envelope around a
    /// full-size body, or an NDJSON batch (a few thousand JWS of about 4 KB each).
    public static let maxStreamBytes = 64 << 20
}
