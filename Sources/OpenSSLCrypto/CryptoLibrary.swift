/// Process-wide set-up of the crypto library.
public enum CryptoLibrary {
    /// Initialises OpenSSL without reading openssl.cnf. Every entry point of this module
    /// does this on first use; call it explicitly at start-up when another library in the
    /// process (libcurl) may initialise OpenSSL first, since the first initialisation
    /// decides whether the configuration file is read.
    public static func initialise() throws(CryptoError) {
        try OpenSSL.initialise()
    }
}
