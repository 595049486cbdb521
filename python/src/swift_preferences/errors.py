"""The errors of the preferences protocol, one class per error kind of the conformance contract."""

from __future__ import annotations


class PreferencesError(Exception):
    """Base class of every error this package raises about preferences files.

    ``kind`` is the conformance contract's error kind (``"io"`` for this base class);
    ``path`` names the file or directory concerned when there is one; ``errno`` is the
    system error number when a system call failed.
    """

    kind: str = "io"

    def __init__(self, message: str, path: str | None = None, errno: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.errno = errno

    def __str__(self) -> str:
        return self.message


class UnsupportedProtocolVersion(PreferencesError):
    """The directory follows a protocol version this implementation does not know: read, never written."""

    kind = "unsupported-protocol-version"

    def __init__(self, directory: str, found: int | str, known: int) -> None:
        shown = found if isinstance(found, int) else f"{found!r} (not a version number)"
        super().__init__(
            f"the preferences directory {directory} follows protocol version {shown}; "
            f"this implementation knows version {known} and does not write there",
            path=directory,
        )
        self.directory = directory
        self.found = found
        self.known = known


class RefusedFile(PreferencesError):
    """A file that is not trusted: a link, not a regular file, a foreign owner, group/other-writable."""

    kind = "refused-file"


class TooLarge(PreferencesError):
    """A file, or the encoding of new values, over the size limit."""

    kind = "too-large"


class Corrupt(PreferencesError):
    """Not a binary property list, one the bounded decoder refuses, or not a dictionary."""

    kind = "corrupt"

    #: For a domain file read leniently: the number and path of the history generation whose
    #: values are served instead (None: no generation decodes, and the file reads as empty).
    generation: int | None = None
    generation_path: str | None = None


class InvalidValue(PreferencesError):
    """A value refused by a declared setting's rule (a schema)."""

    kind = "invalid-value"


class InvalidDomainName(PreferencesError, ValueError):
    """A domain name that is not 1-200 bytes of [A-Za-z0-9._-] not starting with a dot."""

    kind = "invalid-domain-name"


class LockTimeout(PreferencesError):
    """Another writer held the domain's lock for longer than the lock timeout."""

    kind = "lock-timeout"


class ReadOnlyLayer(PreferencesError):
    """A write to a layer this package only reads (the managed and system layers)."""

    kind = "io"
