internal import COpenSSL

extension EVPPKey {
    /// One entry of the OSSL_PARAM list given to EVP_PKEY_fromdata.
    enum Parameter {
        case utf8(String, String)
        case octets(String, [UInt8])
        /// An unsigned integer given big-endian, as JWK and DER carry it.
        case unsignedInteger(String, bigEndian: [UInt8])
    }

    /// Builds a provider-native key from its components. This is OpenSSL 3's cheapest import
    /// path: no DER parsing and no OSSL_DECODER chain (which costs ~100 µs per key in 3.0).
    /// EC public points are checked to be on the curve here.
    static func fromData(keyType: String, selection: Int32, _ parameters: [Parameter]) throws(CryptoError) -> EVPPKey {
        // OSSL_PARAM holds raw pointers; everything it points to lives in this allocation
        // list until EVP_PKEY_fromdata has copied it.
        var allocations: [UnsafeMutableRawPointer] = []
        defer { allocations.forEach { $0.deallocate() } }
        func copy(_ bytes: [UInt8], terminated: Bool) -> UnsafeMutableRawPointer {
            let memory = UnsafeMutableRawPointer.allocate(byteCount: bytes.count + 1, alignment: 8)
            allocations.append(memory)
            memory.copyMemory(from: bytes, byteCount: bytes.count)
            if terminated { memory.storeBytes(of: 0, toByteOffset: bytes.count, as: UInt8.self) }
            return memory
        }
        func key(_ name: String) -> UnsafePointer<CChar> {
            UnsafePointer(copy(Array(name.utf8), terminated: true).assumingMemoryBound(to: CChar.self))
        }

        var list: [OSSL_PARAM] = []
        for parameter in parameters {
            switch parameter {
            case let .utf8(name, value):
                let bytes = Array(value.utf8)
                let buffer = copy(bytes, terminated: true).assumingMemoryBound(to: CChar.self)
                list.append(OSSL_PARAM_construct_utf8_string(key(name), buffer, bytes.count))
            case let .octets(name, bytes):
                list.append(OSSL_PARAM_construct_octet_string(key(name), copy(bytes, terminated: false), bytes.count))
            case let .unsignedInteger(name, bigEndian):
                // OSSL_PARAM integers are in the machine's byte order.
                #if _endian(little)
                let native = Array(bigEndian.reversed())
                #else
                let native = bigEndian
                #endif
                let buffer = copy(native, terminated: false).assumingMemoryBound(to: UInt8.self)
                list.append(OSSL_PARAM_construct_BN(key(name), buffer, native.count))
            }
        }
        list.append(OSSL_PARAM_construct_end())

        let context = try EVPPKeyContext(algorithm: keyType)
        try OpenSSL.check(EVP_PKEY_fromdata_init(context.pointer), "EVP_PKEY_fromdata_init(\(keyType))")
        var key: OpaquePointer? = nil
        let result = list.withUnsafeMutableBufferPointer {
            EVP_PKEY_fromdata(context.pointer, &key, selection, $0.baseAddress)
        }
        try OpenSSL.check(result, "EVP_PKEY_fromdata(\(keyType))")
        return EVPPKey(owning: try OpenSSL.check(key, "EVP_PKEY_fromdata(\(keyType))"))
    }

    /// The selection for public-key imports (macro composite, see shim.h).
    static var publicKeySelection: Int32 { shim_EVP_PKEY_PUBLIC_KEY() }

    /// Parses a DER SubjectPublicKeyInfo of any algorithm.
    static func decodeSubjectPublicKeyInfo(_ der: [UInt8]) throws(CryptoError) -> EVPPKey {
        let key = try OpenSSL.decodeDER(
            der, "d2i_PUBKEY", decode: { d2i_PUBKEY(nil, $0, $1) }, free: { EVP_PKEY_free($0) })
        return EVPPKey(owning: key)
    }

    /// Parses a DER PKCS#1 RSAPublicKey ("BEGIN RSA PUBLIC KEY").
    static func decodePKCS1RSAPublicKey(_ der: [UInt8]) throws(CryptoError) -> EVPPKey {
        let key = try OpenSSL.decodeDER(
            der, "d2i_PublicKey(RSA)", decode: { d2i_PublicKey(EVP_PKEY_RSA, nil, $0, $1) },
            free: { EVP_PKEY_free($0) })
        return EVPPKey(owning: key)
    }

    /// Parses a DER private key of the given legacy type (EVP_PKEY_EC, EVP_PKEY_RSA), in
    /// either PKCS#8 or the type's own form (SEC1 for EC, PKCS#1 for RSA).
    static func decodePrivateKey(type: Int32, _ der: [UInt8]) throws(CryptoError) -> EVPPKey {
        let key = try OpenSSL.decodeDER(
            der, "d2i_PrivateKey", decode: { d2i_PrivateKey(type, nil, $0, $1) }, free: { EVP_PKEY_free($0) })
        return EVPPKey(owning: key)
    }

    /// Generates a key; `configure` sets the algorithm's options on the keygen context.
    static func generate(
        keyType: String, configure: (OpaquePointer) throws(CryptoError) -> Void
    ) throws(CryptoError) -> EVPPKey {
        let context = try EVPPKeyContext(algorithm: keyType)
        try OpenSSL.check(EVP_PKEY_keygen_init(context.pointer), "EVP_PKEY_keygen_init(\(keyType))")
        try configure(context.pointer)
        var key: OpaquePointer? = nil
        try OpenSSL.check(EVP_PKEY_generate(context.pointer, &key), "EVP_PKEY_generate(\(keyType))")
        return EVPPKey(owning: try OpenSSL.check(key, "EVP_PKEY_generate(\(keyType))"))
    }
}
