import CProcessControl
import Glibc
import LedgerCLI

// Before anything is opened: descriptors 0, 1 and 2 exist, so no data file can become one of them.
let descriptors = StandardDescriptors.ensureOpen()
// A closed pipe is an error the CLI handles itself (`FDWriter`): the quiet end of a reader, exit 3
// for `register` and `login`, whose session or account must not be created for nobody in silence.
signal(SIGPIPE, SIG_IGN)
// Not dumpable: a process of the same user (the mailer it starts, anything else) cannot read this
// one's environment (`LEDGER_STORE` may hold a password) or memory through /proc or ptrace.
_ = ledger_forbid_inspection()

// One malloc arena: a read's scanner thread allocates its 512 KiB chunks in an arena of its own
// otherwise, whose freed pages stay resident (about 10 MiB more peak memory per read). glibc's
// `mallopt` is not in the Glibc module (malloc.h), so it is looked up; M_ARENA_MAX is -8.
if let symbol = dlsym(nil, "mallopt") {  // nil: RTLD_DEFAULT
    _ = unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)(-8, 1)
}
exit(LedgerCLI.main(CommandLine.arguments, descriptors: descriptors))
