#ifndef LEDGER_CPROCESSCONTROL_SHIM_H
#define LEDGER_CPROCESSCONTROL_SHIM_H
#include <sys/prctl.h>

/* prctl(2) is variadic, which Swift cannot call: this names the one call ledger makes. Marks the
   process not dumpable, so another process of the same user (a mailer it starts, say) can neither
   read /proc/<pid>/environ (the store URL with its password) nor attach to it. Returns 0 on success. */
static inline int ledger_forbid_inspection(void) { return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); }

#endif
