#ifndef LEDGER_CLIBPQ_SHIM_H
#define LEDGER_CLIBPQ_SHIM_H
#include <libpq-fe.h>
#endif
