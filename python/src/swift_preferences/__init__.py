"""swift_preferences: the swift-preferences on-disk protocol in Python, standard library only.

    from swift_preferences import Domain
    d = Domain("com.example.editor")
    d.set("FontSize", 12)
    with d.transaction() as t:
        t["Count"] = t.get("Count", 0) + 1
    with d.watch(lambda key, old, new: print(key, old, new)):
        ...
"""

from .bplist import PlistDate, Real32
from .domain import Domain, Transaction
from .errors import (Corrupt, InvalidDomainName, InvalidValue, LockTimeout, PreferencesError, RefusedFile,
                     TooLarge, UnsupportedProtocolVersion)
from .files import PROTOCOL_VERSION, protocol_version
from .watch import WatchHandle

__all__ = [
    "Corrupt", "Domain", "InvalidDomainName", "InvalidValue", "LockTimeout", "PROTOCOL_VERSION", "PlistDate",
    "PreferencesError", "Real32", "RefusedFile", "TooLarge", "Transaction", "UnsupportedProtocolVersion",
    "WatchHandle", "protocol_version",
]
