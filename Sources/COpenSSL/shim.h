// The C side of the OpenSSL fence. Only OpenSSLCrypto imports this module.
//
// OpenSSL exposes some of its API as macros (the STACK_OF accessors, OPENSSL_free,
// BIO_get_mem_data, composite flag values) that Swift cannot import; each gets a
// `shim_` static inline wrapper here. No logic lives in this file, apart from the few lines
// of the low-level SHA-256 and P-256 entry points at the end (why: see there).
#ifndef STOREKEEPER_COPENSSL_SHIM_H
#define STOREKEEPER_COPENSSL_SHIM_H

#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/hmac.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/ocsp.h>
#include <openssl/params.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/pkcs7.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

// MARK: STACK_OF(X509)

static inline STACK_OF(X509) *shim_sk_X509_new_null(void) {
    return sk_X509_new_null();
}

static inline int shim_sk_X509_num(const STACK_OF(X509) *stack) {
    return sk_X509_num(stack);
}

static inline X509 *shim_sk_X509_value(const STACK_OF(X509) *stack, int index) {
    return sk_X509_value(stack, index);
}

/// Does not up-ref `certificate`: the stack borrows it.
static inline int shim_sk_X509_push(STACK_OF(X509) *stack, X509 *certificate) {
    return sk_X509_push(stack, certificate);
}

/// Frees the stack only; the certificates are borrowed.
static inline void shim_sk_X509_free(STACK_OF(X509) *stack) {
    sk_X509_free(stack);
}

/// Frees the stack and drops one reference on every certificate in it.
static inline void shim_sk_X509_pop_free(STACK_OF(X509) *stack) {
    sk_X509_pop_free(stack, X509_free);
}

// MARK: STACK_OF(PKCS7_SIGNER_INFO)

static inline int shim_sk_PKCS7_SIGNER_INFO_num(const STACK_OF(PKCS7_SIGNER_INFO) *stack) {
    return sk_PKCS7_SIGNER_INFO_num(stack);
}

// MARK: STACK_OF(OPENSSL_STRING) (as returned by X509_get1_ocsp)

static inline int shim_sk_OPENSSL_STRING_num(const STACK_OF(OPENSSL_STRING) *stack) {
    return sk_OPENSSL_STRING_num(stack);
}

static inline const char *shim_sk_OPENSSL_STRING_value(const STACK_OF(OPENSSL_STRING) *stack, int index) {
    return sk_OPENSSL_STRING_value(stack, index);
}

// MARK: Memory and BIO

static inline void shim_OPENSSL_free(void *pointer) {
    OPENSSL_free(pointer);
}

/// Points `*data` at the BIO's buffer (still owned by the BIO); returns its length.
static inline long shim_BIO_get_mem_data(BIO *bio, char **data) {
    return BIO_get_mem_data(bio, data);
}

// MARK: Composite constants Swift cannot import

static inline unsigned long shim_XN_FLAG_RFC2253(void) {
    return XN_FLAG_RFC2253;
}

static inline int shim_EVP_PKEY_PUBLIC_KEY(void) {
    return EVP_PKEY_PUBLIC_KEY;
}

// MARK: Low-level SHA-256 and P-256 ECDSA (no provider fetch)
//
// In OpenSSL 3 every EVP operation fetches its algorithm from a provider, and the first fetch
// of a process builds the name map of every legacy algorithm name and loads the default
// provider: 5M instructions, a fifth of a fresh verify-signed-data process, before a single
// byte is hashed (SHA256(), the one-shot, is EVP_Q_digest underneath). These are OpenSSL's own
// SHA-256 and ECDSA code reached through the older entry points, deprecated in 3.0 but kept
// and maintained, which fetch nothing. They are used only where a process pays for them on
// every request: hashing, and an ES256 check with a P-256 key given as its point.
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"

/// SHA-256 of `length` bytes into `digest` (32 bytes). 1 on success.
static inline int shim_sha256(const void *bytes, size_t length, unsigned char *digest) {
    SHA256_CTX context;
    return SHA256_Init(&context) && SHA256_Update(&context, bytes, length) && SHA256_Final(digest, &context);
}

/// A P-256 public key from its uncompressed point (0x04 || x || y); NULL when the bytes are
/// not a point on the curve (EC_KEY_oct2key checks it). Freed with shim_EC_KEY_free.
static inline EC_KEY *shim_p256_public_key(const unsigned char *point, size_t length) {
    EC_KEY *key = EC_KEY_new_by_curve_name(NID_X9_62_prime256v1);
    if (key == NULL) return NULL;
    if (EC_KEY_oct2key(key, point, length, NULL) != 1) {
        EC_KEY_free(key);
        return NULL;
    }
    return key;
}

static inline void shim_EC_KEY_free(EC_KEY *key) {
    EC_KEY_free(key);
}

/// ECDSA_verify: 1 valid, 0 invalid, -1 could not check (a malformed DER signature among them).
static inline int shim_ECDSA_verify(const unsigned char *digest, int digestLength,
                                    const unsigned char *signature, int signatureLength, EC_KEY *key) {
    return ECDSA_verify(0, digest, digestLength, signature, signatureLength, key);
}

#pragma clang diagnostic pop

// MARK: TLS client (SSL_CTX, SSL)
//
// The min-version, SNI and mode setters are macros over SSL_CTX_ctrl/SSL_ctrl.

static inline int shim_SSL_CTX_set_min_proto_version(SSL_CTX *context, int version) {
    return (int)SSL_CTX_set_min_proto_version(context, version);
}

/// SNI: the name sent in the ClientHello (DNS names only; never an IP address, RFC 6066 §3).
static inline int shim_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

/// SSL_write may then return after part of the buffer, and a retry may pass a buffer that
/// moved (Swift arrays do): the caller loops over what is left.
static inline void shim_SSL_set_partial_write_modes(SSL *ssl) {
    SSL_set_mode(ssl, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
}

static inline int shim_ERR_GET_REASON(unsigned long code) {
    return ERR_GET_REASON(code);
}

static inline int shim_ERR_GET_LIB(unsigned long code) {
    return ERR_GET_LIB(code);
}

#endif
