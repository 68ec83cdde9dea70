internal import COpenSSL

extension EVPPKey {
    /// Which signature scheme an operation runs; decided by the caller's key class, so
    /// the hot verify path does not ask OpenSSL for the key type each time.
    enum Scheme {
        case ecdsa
        case rsaPKCS1v15
    }

    /// Signs SHA-256(message): DER ECDSA, or RSA PKCS#1 v1.5.
    func signSHA256(_ message: [UInt8], scheme: Scheme) throws(CryptoError) -> [UInt8] {
        let context = try EVPMDContext()
        // The EVP_PKEY_CTX handed back belongs to the EVP_MD_CTX and is freed with it.
        var keyContext: OpaquePointer? = nil
        try OpenSSL.check(
            EVP_DigestSignInit(context.pointer, &keyContext, EVP_sha256(), nil, pointer), "EVP_DigestSignInit")
        if scheme == .rsaPKCS1v15, let keyContext {
            try OpenSSL.check(EVP_PKEY_CTX_set_rsa_padding(keyContext, RSA_PKCS1_PADDING), "EVP_PKEY_CTX_set_rsa_padding")
        }
        var signature = [UInt8](repeating: 0, count: max(maximumSignatureSize, 1))
        var length = signature.count
        let result = message.withUnsafeBufferPointer { input in
            EVP_DigestSign(context.pointer, &signature, &length, input.baseAddress, input.count)
        }
        try OpenSSL.check(result, "EVP_DigestSign")
        return Array(signature.prefix(length))
    }

    /// Verifies a signature over SHA-256(message) (DER ECDSA, or RSA PKCS#1 v1.5).
    /// An invalid or malformed signature is `false`; only a failure to run the check throws.
    func verifySHA256(_ signature: [UInt8], message: [UInt8], scheme: Scheme) throws(CryptoError) -> Bool {
        let context = try EVPMDContext()
        // The EVP_PKEY_CTX handed back belongs to the EVP_MD_CTX and is freed with it.
        var keyContext: OpaquePointer? = nil
        try OpenSSL.check(
            EVP_DigestVerifyInit(context.pointer, &keyContext, EVP_sha256(), nil, pointer), "EVP_DigestVerifyInit")
        if scheme == .rsaPKCS1v15, let keyContext {
            try OpenSSL.check(EVP_PKEY_CTX_set_rsa_padding(keyContext, RSA_PKCS1_PADDING), "EVP_PKEY_CTX_set_rsa_padding")
        }
        let result = signature.withUnsafeBufferPointer { signature in
            message.withUnsafeBufferPointer { input in
                EVP_DigestVerify(context.pointer, signature.baseAddress, signature.count, input.baseAddress, input.count)
            }
        }
        // 1 valid, 0 invalid; negative is "could not check", which callers also treat as
        // not valid. Either way nothing useful is left on the queue.
        if result != 1 { OpenSSL.discardErrors() }
        return result == 1
    }
}
