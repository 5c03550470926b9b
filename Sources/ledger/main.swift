import Glibc
import LedgerCLI

exit(LedgerCLI.main(CommandLine.arguments))
