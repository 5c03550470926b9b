// ledger-fuzz: the hostile-input drill (issue 4). Placeholder until the harness lands.
import Glibc

exit(0)
