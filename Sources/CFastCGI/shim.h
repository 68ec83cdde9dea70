// The C side of the libfcgi fence. Only FastCGIServer imports this module.
//
// Why libfcgi is loaded with dlopen instead of linked: most runs of a function binary are one
// process per request (CGI, a pipe, cron), and those never speak FastCGI; linking libfcgi
// would make the dynamic loader map it at every such start. So the module map links nothing;
// the first FastCGI listener calls sk_fcgi_load, which dlopens libfcgi once and resolves the
// functions FastCGIServer uses into one sk_fcgi_api table (kept by Swift, see LibFCGI.swift:
// a static here would be one copy per object file). The header is still used at build time
// for FCGX_Request's layout and to check each table entry against libfcgi's declaration.
//
// Only the FCGX_* request API is used, with an explicit FCGX_Request: never the stdio
// compatibility layer (fcgi_stdio.h) nor FCGX_Accept, which replace `environ` with each
// request's parameters.
#ifndef STOREKEEPER_CFASTCGI_SHIM_H
#define STOREKEEPER_CFASTCGI_SHIM_H

#include <fcgiapp.h>
#include <dlfcn.h>
#include <stdio.h>
#include <sys/signalfd.h>

/// The soname, not libfcgi.so: the unversioned link exists only with the -dev package.
#define SK_FCGI_LIBRARY "libfcgi.so.0"

/// The libfcgi functions FastCGIServer uses, with their signatures from fcgiapp.h.
typedef struct sk_fcgi_api {
    int (*initialize)(void);
    int (*init_request)(FCGX_Request *request, int sock, int flags);
    int (*accept_r)(FCGX_Request *request);
    void (*finish_r)(FCGX_Request *request);
    void (*free_request)(FCGX_Request *request, int close);
    int (*get_str)(char *str, int n, FCGX_Stream *stream);
    int (*put_str)(const char *str, int n, FCGX_Stream *stream);
    int (*get_error)(FCGX_Stream *stream);
} sk_fcgi_api;

// A typo in a signature above would make every call through that entry undefined behaviour;
// these fail the build instead (__typeof__ only reads the declarations, never links them).
#define SK_FCGI_SAME_TYPE(field, function) \
    _Static_assert(__builtin_types_compatible_p(__typeof__(((sk_fcgi_api *)0)->field), __typeof__(&function)), \
                   "sk_fcgi_api." #field " does not match " #function)
SK_FCGI_SAME_TYPE(initialize, FCGX_Init);
SK_FCGI_SAME_TYPE(init_request, FCGX_InitRequest);
SK_FCGI_SAME_TYPE(accept_r, FCGX_Accept_r);
SK_FCGI_SAME_TYPE(finish_r, FCGX_Finish_r);
SK_FCGI_SAME_TYPE(free_request, FCGX_Free);
SK_FCGI_SAME_TYPE(get_str, FCGX_GetStr);
SK_FCGI_SAME_TYPE(put_str, FCGX_PutStr);
SK_FCGI_SAME_TYPE(get_error, FCGX_GetError);
#undef SK_FCGI_SAME_TYPE

/// Copies dlerror's text (or `fallback` when it has none) into `error`.
static inline void sk_fcgi_describe_failure(const char *fallback, char *error, size_t error_size) {
    const char *reason = dlerror();
    snprintf(error, error_size, "%s", reason != NULL ? reason : fallback);
}

/// Opens `library` (normally SK_FCGI_LIBRARY) and fills `api` with every entry. Returns 0, or
/// -1 with the reason in `error` and the library closed again. Call once per process: the
/// library stays loaded for good. RTLD_NOW: a missing symbol fails here, where it is
/// reported; RTLD_LOCAL: its symbols do not join the global namespace.
static inline int sk_fcgi_load(const char *library, sk_fcgi_api *api, char *error, size_t error_size) {
    void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        sk_fcgi_describe_failure("dlopen failed", error, error_size);
        return -1;
    }
    // POSIX guarantees a function's dlsym address converts to a function pointer.
#define SK_FCGI_RESOLVE(field, symbol)                                          \
    do {                                                                        \
        dlerror();                                                              \
        void *address = dlsym(handle, #symbol);                                 \
        if (address == NULL) {                                                  \
            sk_fcgi_describe_failure(#symbol " not found", error, error_size);  \
            dlclose(handle);                                                    \
            return -1;                                                          \
        }                                                                       \
        api->field = (__typeof__(api->field))address;                           \
    } while (0)
    SK_FCGI_RESOLVE(initialize, FCGX_Init);
    SK_FCGI_RESOLVE(init_request, FCGX_InitRequest);
    SK_FCGI_RESOLVE(accept_r, FCGX_Accept_r);
    SK_FCGI_RESOLVE(finish_r, FCGX_Finish_r);
    SK_FCGI_RESOLVE(free_request, FCGX_Free);
    SK_FCGI_RESOLVE(get_str, FCGX_GetStr);
    SK_FCGI_RESOLVE(put_str, FCGX_PutStr);
    SK_FCGI_RESOLVE(get_error, FCGX_GetError);
#undef SK_FCGI_RESOLVE
    return 0;
}

#endif
