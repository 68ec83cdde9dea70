// The C side of the OpenSSL fence. Only OpenSSLCrypto imports this module.
//
// OpenSSL exposes some of its API as macros (the STACK_OF accessors, OPENSSL_free,
// BIO_get_mem_data, composite flag values) that Swift cannot import; each gets a
// `shim_` static inline wrapper here. No logic lives in this file.
#ifndef STOREKEEPER_COPENSSL_SHIM_H
#define STOREKEEPER_COPENSSL_SHIM_H

#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
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

#endif
