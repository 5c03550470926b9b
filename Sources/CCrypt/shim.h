#ifndef LEDGER_CCRYPT_SHIM_H
#define LEDGER_CCRYPT_SHIM_H
#include <crypt.h>
#endif
