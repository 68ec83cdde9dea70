internal import COpenSSL

/// Owns one SSL_CTX for TLS clients: TLS 1.2 or later, the peer's certificate always
/// verified (against `caFile`, or the system's CAs), and our client certificate when given.
/// Each `SSL_new` up-refs it, so a connection may outlive this object.
final class SSLContext {
    let pointer: OpaquePointer

    init(_ options: TLSClientOptions) throws(TLSError) {
        guard OPENSSL_init_ssl(UInt64(OPENSSL_INIT_NO_LOAD_CONFIG), nil) == 1,
              let context = SSL_CTX_new(TLS_client_method()) else {
            throw Self.failure("SSL_CTX_new")
        }
        pointer = context
        // From here on a throw releases self, and deinit frees the context.
        guard shim_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) == 1 else {
            throw Self.failure("SSL_CTX_set_min_proto_version")
        }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        try trust(options.caFile)
        try identify(certificate: options.certificateFile, key: options.keyFile)
    }

    deinit { SSL_CTX_free(pointer) }

    private func trust(_ caFile: String?) throws(TLSError) {
        if let caFile {
            guard SSL_CTX_load_verify_locations(pointer, caFile, nil) == 1 else {
                throw Self.failure("the CA file \(caFile) does not load")
            }
        } else if SSL_CTX_set_default_verify_paths(pointer) != 1 {
            throw Self.failure("the system's CAs do not load")
        }
    }

    private func identify(certificate: String?, key: String?) throws(TLSError) {
        switch (certificate, key) {
        case (nil, nil):
            return
        case (let certificate?, let key?):
            guard SSL_CTX_use_certificate_chain_file(pointer, certificate) == 1 else {
                throw Self.failure("the client certificate file \(certificate) does not load")
            }
            guard SSL_CTX_use_PrivateKey_file(pointer, key, SSL_FILETYPE_PEM) == 1 else {
                throw Self.failure("the client key file \(key) does not load")
            }
            guard SSL_CTX_check_private_key(pointer) == 1 else {
                throw Self.failure("the client key \(key) does not belong to the certificate \(certificate)")
            }
        default:
            throw TLSError(.configuration, "a client certificate needs both its certificate file and its key file")
        }
    }

    /// Our own set-up failed: the reason from OpenSSL's error queue (file names, not contents).
    private static func failure(_ what: String) -> TLSError {
        TLSError(.configuration, "TLS: \(what): \(CryptoError.fromErrorQueue(operation: what).message)")
    }
}
