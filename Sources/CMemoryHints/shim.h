#ifndef LEDGER_CMEMORYHINTS_SHIM_H
#define LEDGER_CMEMORYHINTS_SHIM_H

/* A hint that the cache line at `address` is about to be read: the compiler's prefetch, which Swift
   cannot name. It reads nothing and never faults, whatever `address` is. The key table asks for an
   account's line while the member's Base64 is decoded, so the lookup that follows finds it in the
   cache instead of waiting on memory. */
static inline void ledger_prefetch(const void *address) { __builtin_prefetch(address, 0, 3); }

#endif
