#ifndef LEDGER_CLIBCRYPTO_SHIM_H
#define LEDGER_CLIBCRYPTO_SHIM_H
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
#include <openssl/provider.h>
#include <openssl/core_dispatch.h>
#endif
