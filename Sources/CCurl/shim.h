// The C side of the libcurl fence. Only HTTPTransport imports this module.
//
// Why libcurl is loaded with dlopen instead of linked: every function binary is one process
// per request, and linking libcurl makes the dynamic loader map libcurl.so.4 and the ~28
// libraries it needs (GnuTLS, Kerberos, LDAP, libssh2, nghttp2, ...) at every start, about
// 3.5-4 ms and 5 MB RSS, even in a process that never makes an HTTP call. So the module map
// links nothing; the first CurlHTTPClient calls sk_curl_load, which dlopens libcurl once and
// resolves every function this module uses into one sk_curl_api table, and all calls go
// through that table. The headers are still used at build time for the types, constants
// and, below, to check each table entry against libcurl's own declaration.
//
// The table lives in Swift (HTTPTransport's `Curl`), not in a static variable here: a
// header's statics are emitted once per object file that uses them, so a C-side global
// would not be one table per process.
//
// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call; each
// argument type libcurl takes gets one typed `sk_` wrapper here that calls the variadic
// entry through its variadic pointer type (a correct variadic call in C). Apart from loading, no
// logic lives in this file.
#ifndef STOREKEEPER_CCURL_SHIM_H
#define STOREKEEPER_CCURL_SHIM_H

#include <curl/curl.h>
#include <dlfcn.h>
#include <stdio.h>

/// The soname, not libcurl.so: the unversioned link exists only with the -dev package.
#define SK_CURL_LIBRARY "libcurl.so.4"

/// The libcurl functions HTTPTransport uses, with their signatures from curl.h and easy.h.
typedef struct sk_curl_api {
    CURLcode (*global_init)(long flags);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *curl);
    void (*easy_reset)(CURL *curl);
    CURLcode (*easy_setopt)(CURL *curl, CURLoption option, ...);
    CURLcode (*easy_perform)(CURL *curl);
    CURLcode (*easy_getinfo)(CURL *curl, CURLINFO info, ...);
    const char *(*easy_strerror)(CURLcode code);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *string);
    void (*slist_free_all)(struct curl_slist *list);
} sk_curl_api;

// A typo in a signature above would make every call through that entry undefined
// behaviour; these fail the build instead. __typeof__ does not evaluate its operand, so the
// declarations are only read, never linked against.
#define SK_CURL_SAME_TYPE(field, function) \
    _Static_assert(__builtin_types_compatible_p(__typeof__(((sk_curl_api *)0)->field), __typeof__(&function)), \
                   "sk_curl_api." #field " does not match " #function)
SK_CURL_SAME_TYPE(global_init, curl_global_init);
SK_CURL_SAME_TYPE(easy_init, curl_easy_init);
SK_CURL_SAME_TYPE(easy_cleanup, curl_easy_cleanup);
SK_CURL_SAME_TYPE(easy_reset, curl_easy_reset);
SK_CURL_SAME_TYPE(easy_setopt, curl_easy_setopt);
SK_CURL_SAME_TYPE(easy_perform, curl_easy_perform);
SK_CURL_SAME_TYPE(easy_getinfo, curl_easy_getinfo);
SK_CURL_SAME_TYPE(easy_strerror, curl_easy_strerror);
SK_CURL_SAME_TYPE(slist_append, curl_slist_append);
SK_CURL_SAME_TYPE(slist_free_all, curl_slist_free_all);
#undef SK_CURL_SAME_TYPE

// MARK: Loading

/// Copies dlerror's text (or `fallback` when it has none) into `error`.
static inline void sk_curl_describe_failure(const char *fallback, char *error, size_t error_size) {
    const char *reason = dlerror();
    snprintf(error, error_size, "%s", reason != NULL ? reason : fallback);
}

/// Opens `library` (normally SK_CURL_LIBRARY) and fills `api` with every entry. Returns 0,
/// or -1 with the reason in `error` (dlerror's text: the missing file or symbol) and the
/// library closed again. Call once per process: the library stays loaded for good.
///
/// RTLD_NOW: a libcurl that cannot resolve its own dependencies fails here, where it is
/// reported, not at some later call. RTLD_LOCAL: its symbols (and its TLS library's) do not
/// join the global namespace other libraries resolve against.
static inline int sk_curl_load(const char *library, sk_curl_api *api, char *error, size_t error_size) {
    void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        sk_curl_describe_failure("dlopen failed", error, error_size);
        return -1;
    }
    // POSIX guarantees a function's dlsym address converts to a function pointer.
#define SK_CURL_RESOLVE(field, symbol)                                          \
    do {                                                                        \
        dlerror();                                                              \
        void *address = dlsym(handle, #symbol);                                 \
        if (address == NULL) {                                                  \
            sk_curl_describe_failure(#symbol " not found", error, error_size);  \
            dlclose(handle);                                                    \
            return -1;                                                          \
        }                                                                       \
        api->field = (__typeof__(api->field))address;                           \
    } while (0)
    SK_CURL_RESOLVE(global_init, curl_global_init);
    SK_CURL_RESOLVE(easy_init, curl_easy_init);
    SK_CURL_RESOLVE(easy_cleanup, curl_easy_cleanup);
    SK_CURL_RESOLVE(easy_reset, curl_easy_reset);
    SK_CURL_RESOLVE(easy_setopt, curl_easy_setopt);
    SK_CURL_RESOLVE(easy_perform, curl_easy_perform);
    SK_CURL_RESOLVE(easy_getinfo, curl_easy_getinfo);
    SK_CURL_RESOLVE(easy_strerror, curl_easy_strerror);
    SK_CURL_RESOLVE(slist_append, curl_slist_append);
    SK_CURL_RESOLVE(slist_free_all, curl_slist_free_all);
#undef SK_CURL_RESOLVE
    return 0;
}

// MARK: The non-variadic functions, through the table

static inline CURLcode sk_curl_global_init(const sk_curl_api *api, long flags) {
    return api->global_init(flags);
}

static inline CURL *sk_curl_easy_init(const sk_curl_api *api) {
    return api->easy_init();
}

static inline void sk_curl_easy_cleanup(const sk_curl_api *api, CURL *handle) {
    api->easy_cleanup(handle);
}

static inline void sk_curl_easy_reset(const sk_curl_api *api, CURL *handle) {
    api->easy_reset(handle);
}

static inline CURLcode sk_curl_easy_perform(const sk_curl_api *api, CURL *handle) {
    return api->easy_perform(handle);
}

static inline const char *sk_curl_easy_strerror(const sk_curl_api *api, CURLcode code) {
    return api->easy_strerror(code);
}

static inline struct curl_slist *sk_curl_slist_append(const sk_curl_api *api, struct curl_slist *list,
                                                      const char *string) {
    return api->slist_append(list, string);
}

static inline void sk_curl_slist_free_all(const sk_curl_api *api, struct curl_slist *list) {
    api->slist_free_all(list);
}

// MARK: curl_easy_setopt, one wrapper per argument type

/// CURLOPTTYPE_LONG options (flags, limits, timeouts in milliseconds).
static inline CURLcode sk_curl_easy_setopt_long(const sk_curl_api *api, CURL *handle, CURLoption option,
                                                long value) {
    return api->easy_setopt(handle, option, value);
}

/// CURLOPTTYPE_OFF_T options (sizes that may exceed a long on some platforms).
static inline CURLcode sk_curl_easy_setopt_off_t(const sk_curl_api *api, CURL *handle, CURLoption option,
                                                 curl_off_t value) {
    return api->easy_setopt(handle, option, value);
}

/// CURLOPTTYPE_STRINGPOINT options. libcurl copies the string (CURLOPT_POSTFIELDS is the
/// exception: it is an object pointer and goes through sk_curl_easy_setopt_pointer).
static inline CURLcode sk_curl_easy_setopt_string(const sk_curl_api *api, CURL *handle, CURLoption option,
                                                  const char *value) {
    return api->easy_setopt(handle, option, value);
}

/// CURLOPTTYPE_OBJECTPOINT / CURLOPTTYPE_CBPOINT options: buffers and callback contexts
/// that libcurl borrows, not copies.
static inline CURLcode sk_curl_easy_setopt_pointer(const sk_curl_api *api, CURL *handle, CURLoption option,
                                                   void *value) {
    return api->easy_setopt(handle, option, value);
}

/// CURLOPTTYPE_SLISTPOINT options. libcurl borrows the list until the transfer is over.
static inline CURLcode sk_curl_easy_setopt_slist(const sk_curl_api *api, CURL *handle, CURLoption option,
                                                 struct curl_slist *value) {
    return api->easy_setopt(handle, option, value);
}

/// CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION share this signature.
static inline CURLcode sk_curl_easy_setopt_write_callback(const sk_curl_api *api, CURL *handle,
                                                          CURLoption option, curl_write_callback value) {
    return api->easy_setopt(handle, option, value);
}

// MARK: curl_easy_getinfo, one wrapper per result type

static inline CURLcode sk_curl_easy_getinfo_long(const sk_curl_api *api, CURL *handle, CURLINFO info,
                                                 long *value) {
    return api->easy_getinfo(handle, info, value);
}

#endif
