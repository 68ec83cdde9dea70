internal import COpenSSL
import Glibc

/// The one place an SSL_* result becomes a wait or an error, classified by OpenSSL's codes
/// (SSL_get_error, the verify result, the error queue's reason), never by its text.
extension TLSClientConnection {
    /// The TLS alerts a server sends when it will not accept our client certificate (or,
    /// for decrypt_error, our proof of its key): our configuration, whenever it arrives (in
    /// TLS 1.3 the server checks it after our side of the handshake is done).
    private static let clientCertificateAlerts: Set<Int32> = [
        SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED, SSL_R_SSLV3_ALERT_BAD_CERTIFICATE, SSL_R_TLSV1_ALERT_UNKNOWN_CA,
        SSL_R_SSLV3_ALERT_CERTIFICATE_EXPIRED, SSL_R_SSLV3_ALERT_CERTIFICATE_UNKNOWN,
        SSL_R_SSLV3_ALERT_UNSUPPORTED_CERTIFICATE, SSL_R_SSLV3_ALERT_CERTIFICATE_REVOKED,
        SSL_R_TLSV1_ALERT_ACCESS_DENIED, SSL_R_TLSV1_ALERT_DECRYPT_ERROR,
    ]

    /// After a result <= 0: waits when OpenSSL wants to read or write (and returns, so the
    /// caller repeats the call), throws otherwise. Any throw marks the connection broken.
    func retry(_ result: Int32, _ operation: String, until deadline: ContinuousClock.Instant,
               handshake: Bool) throws(TLSError) {
        let systemError = errno
        let reason = SSL_get_error(ssl, result)
        do throws(TLSError) {
            switch reason {
            case SSL_ERROR_WANT_READ:
                try socket.wait(for: .readable, until: deadline, "\(address): TLS \(operation)")
            case SSL_ERROR_WANT_WRITE:
                try socket.wait(for: .writable, until: deadline, "\(address): TLS \(operation)")
            case SSL_ERROR_ZERO_RETURN:
                throw TLSError(.unavailable, "\(address): TLS \(operation): the server closed the connection")
            case SSL_ERROR_SYSCALL:
                OpenSSL.discardErrors()
                // result 0 is an EOF, whatever errno was left from before.
                let detail = result == 0 || systemError == 0 ? "the connection ended" : String(cString: strerror(systemError))
                throw TLSError(.unavailable, "\(address): TLS \(operation): \(detail)")
            case SSL_ERROR_SSL:
                throw protocolFailure(operation, handshake: handshake)
            default:
                throw queueFailure("\(operation) (SSL_get_error \(reason))", kind: .unavailable)
            }
        } catch {
            isBroken = true
            throw error
        }
    }

    /// A write that failed because the server hung up may have been preceded by its reason:
    /// in TLS 1.3 a server checks our certificate after our side of the handshake is done,
    /// then sends an alert and closes, often with a reset that fails our next write before we
    /// read that alert. The kernel keeps what arrived before the reset, so one read finds it;
    /// otherwise the write's own error stands.
    func refusalBefore(_ failure: TLSError) -> TLSError {
        guard failure.kind == .unavailable else { return failure }
        var byte: UInt8 = 0
        let result = freshErrorQueue { SSL_read(ssl, &byte, 1) }
        guard result <= 0, SSL_get_error(ssl, result) == SSL_ERROR_SSL else {
            OpenSSL.discardErrors()
            return failure
        }
        let refusal = protocolFailure("write", handshake: false)
        return refusal.kind == .configuration ? refusal : failure
    }

    /// A TLS protocol error: our verdict on their certificate, their verdict on ours, a peer
    /// that does not speak TLS 1.2+ (all configuration), or a fault mid-run (unavailable).
    private func protocolFailure(_ operation: String, handshake: Bool) -> TLSError {
        let verdict = SSL_get_verify_result(ssl)
        if handshake && verdict != X509_V_OK {
            OpenSSL.discardErrors()
            return certificateRejected(verdict)
        }
        let code = ERR_peek_error()
        let fromSSL = shim_ERR_GET_LIB(code) == ERR_LIB_SSL
        if fromSSL && shim_ERR_GET_REASON(code) == SSL_R_UNEXPECTED_EOF_WHILE_READING {
            // The server hung up without a word (OpenSSL 3 reports it as a protocol error):
            // gone or restarting, not a disagreement about TLS.
            return queueFailure("\(operation): the server closed the connection", kind: .unavailable)
        }
        if fromSSL && Self.clientCertificateAlerts.contains(shim_ERR_GET_REASON(code)) {
            let detail = CryptoError.fromErrorQueue(operation: operation).message
            return TLSError(.configuration, "\(address): the server refused our client certificate (or wanted one and we have none): \(detail)")
        }
        if handshake {
            let detail = CryptoError.fromErrorQueue(operation: operation).message
            return TLSError(.configuration, "\(address): the TLS handshake failed; is this a TLS 1.2+ port? \(detail)")
        }
        return queueFailure(operation, kind: .unavailable)
    }

    /// Our verdict on the server's certificate, with whose configuration it points at.
    func certificateRejected(_ verdict: Int) -> TLSError {
        let reason = String(cString: X509_verify_cert_error_string(verdict))
        let whose = switch Int32(verdict) {
        case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH:
            "the server's certificate does not name the host we connected to"
        case X509_V_ERR_CERT_HAS_EXPIRED, X509_V_ERR_CERT_NOT_YET_VALID:
            "the server's certificate is outside its validity period (the server's configuration, or our clock)"
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT,
             X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN, X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
            "the server's certificate is not signed by a CA we trust (our CA file, or the system's CAs)"
        default:
            "the server's certificate does not verify"
        }
        return TLSError(.configuration, "\(address): \(whose): \(reason) (X509 error \(verdict))")
    }

    /// A failed set-up call, with OpenSSL's queued reason.
    func queueFailure(_ operation: String, kind: TLSError.Kind = .configuration) -> TLSError {
        TLSError(kind, "\(address): TLS \(operation): \(CryptoError.fromErrorQueue(operation: operation).message)")
    }
}
