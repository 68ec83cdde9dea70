// The C side of the SQLite fence. Only SQLiteStore imports this module.
//
// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import
// (and must never hold as a callable value): the two binds that need it are wrapped here.
// No logic lives in this file.
#ifndef STOREKEEPER_CSQLITE_SHIM_H
#define STOREKEEPER_CSQLITE_SHIM_H

#include <sqlite3.h>

/// Binds a copy of `length` bytes: SQLite owns the copy, the caller keeps its buffer.
static inline int shim_sqlite3_bind_blob_transient(sqlite3_stmt *statement, int index,
                                                   const void *bytes, sqlite3_uint64 length) {
    return sqlite3_bind_blob64(statement, index, bytes, length, SQLITE_TRANSIENT);
}

/// Binds a copy of `length` bytes of UTF-8 text (NUL bytes included, no terminator needed).
static inline int shim_sqlite3_bind_text_transient(sqlite3_stmt *statement, int index,
                                                   const void *utf8, sqlite3_uint64 length) {
    return sqlite3_bind_text64(statement, index, (const char *)utf8, length, SQLITE_TRANSIENT, SQLITE_UTF8);
}

/// sqlite3_db_config is variadic: this is its one use here, an on/off option.
static inline int shim_sqlite3_db_config_flag(sqlite3 *db, int option, int on) {
    int result = 0;
    return sqlite3_db_config(db, option, on, &result);
}

#endif
