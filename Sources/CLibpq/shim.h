#ifndef LEDGER_CLIBPQ_SHIM_H
#define LEDGER_CLIBPQ_SHIM_H
// libpq's declarations only: ledger loads the library when a PostgreSQL store is first opened
// (LedgerKit's `LibPQ`), so nothing links it and a process that never opens one never maps it.
#if __has_include(<libpq-fe.h>)
#include <libpq-fe.h>
#else
#include <postgresql/libpq-fe.h>
#endif
#endif
