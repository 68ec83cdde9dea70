// The C side of the hiredis fence. Only RedisStore imports this module.
//
// hiredis hands replies back through a `void **` out-parameter (so one call serves the
// async API too) and keeps its error text in a fixed char array, which Swift imports as a
// 128-element tuple. These wrappers give both a typed shape. No logic lives in this file.
#ifndef STOREKEEPER_CHIREDIS_SHIM_H
#define STOREKEEPER_CHIREDIS_SHIM_H

#include <hiredis/hiredis.h>

/// Sends whatever redisAppendCommandArgv queued, then reads the next reply. NULL means the
/// context failed (see shim_redisErr); the context is unusable afterwards. The caller owns
/// the reply and frees it with freeReplyObject.
static inline redisReply *shim_redisGetReply(redisContext *context) {
    void *reply = NULL;
    if (redisGetReply(context, &reply) != REDIS_OK) {
        return NULL;
    }
    return (redisReply *)reply;
}

/// The library's description of the context's last failure; owned by the context.
static inline const char *shim_redisErrstr(const redisContext *context) {
    return context->errstr;
}

/// One of REDIS_ERR_IO, REDIS_ERR_EOF, ... or 0 while the context is healthy.
static inline int shim_redisErr(const redisContext *context) {
    return context->err;
}

/// The next complete reply fed to `reader`, through a typed out-parameter: REDIS_OK with
/// *reply NULL means more bytes are needed; REDIS_ERR means the bytes are not RESP (see
/// shim_redisReaderErrstr) and the reader is unusable. The caller owns a non-NULL reply.
static inline int shim_redisReaderGetReply(redisReader *reader, redisReply **reply) {
    void *next = NULL;
    int status = redisReaderGetReply(reader, &next);
    *reply = (redisReply *)next;
    return status;
}

/// The reader's description of its failure; owned by the reader.
static inline const char *shim_redisReaderErrstr(const redisReader *reader) {
    return reader->errstr;
}

#endif
