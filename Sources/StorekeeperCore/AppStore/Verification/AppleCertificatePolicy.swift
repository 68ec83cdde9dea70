import OpenSSLCrypto

/// Apple's rules for the `x5c` chain of App Store signed data, beyond what X.509 path
/// validation checks: the intermediate must be Apple's WWDR CA and the leaf must be an App
/// Store receipt-signing certificate, named by Apple's certificate policy OIDs.
///
/// https://developer.apple.com/documentation/appstoreservernotifications/jwsdecodedheader
enum AppleCertificatePolicy {
    /// Apple Worldwide Developer Relations intermediate marker.
    static let intermediateOID = "1.2.840.113635.100.6.2.1"
    /// Mac/App Store receipt-signing leaf marker.
    static let leafOID = "1.2.840.113635.100.6.11.1"
    /// Leaf, intermediate, root: the root sent in `x5c` is never trusted by itself.
    static let chainLength = 3

    /// Checks the two certificates Apple's policy names; throws INVALID_CERTIFICATE.
    static func check(leaf: Certificate, intermediate: Certificate) throws(VerificationError) {
        guard intermediate.isCertificateAuthority else {
            throw VerificationError(.invalidCertificate, "intermediate certificate is not a CA")
        }
        guard intermediate.hasExtension(oid: intermediateOID) else {
            throw VerificationError(.invalidCertificate, "intermediate certificate lacks Apple's WWDR OID \(intermediateOID)")
        }
        guard leaf.hasExtension(oid: leafOID) else {
            throw VerificationError(.invalidCertificate, "leaf certificate lacks Apple's receipt-signing OID \(leafOID)")
        }
        guard !leaf.isCertificateAuthority else {
            throw VerificationError(.invalidCertificate, "leaf certificate is a CA")
        }
    }
}
