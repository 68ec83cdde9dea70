internal import COpenSSL

/// Owns one ASN1_OBJECT (an OID), as made by OBJ_txt2obj.
final class ASN1Object {
    let pointer: OpaquePointer

    /// Parses a dotted OID only ("1.2.840.113635.100.6.11.1"); names are refused
    /// (no_name = 1) so a typo cannot silently match a registered short name.
    init?(dottedOID: String) {
        guard let pointer = OBJ_txt2obj(dottedOID, 1) else {
            OpenSSL.discardErrors()
            return nil
        }
        self.pointer = pointer
    }

    deinit { ASN1_OBJECT_free(pointer) }
}
