"""Where domains live: the directories resolved from the environment exactly as the Swift library does."""

from __future__ import annotations

import os
import pwd
import re
from dataclasses import dataclass
from typing import Mapping

from .errors import InvalidDomainName

GLOBAL_DOMAIN = "NSGlobalDomain"
GLOBAL_FILE_STEM = ".GlobalPreferences"
MAXIMUM_DOMAIN_NAME_LENGTH = 200
_ALLOWED = re.compile(r"[A-Za-z0-9._-]")


def validate_domain_name(name: str) -> str:
    """Returns ``name`` if it is a valid domain name, else raises :class:`InvalidDomainName`.

    Valid: 1-200 bytes of ``[A-Za-z0-9._-]``, not starting with a dot. ``NSGlobalDomain``
    names the global domain. Checked before any file-system call.
    """
    if not isinstance(name, str):
        raise InvalidDomainName(f"a domain name must be a string, not {type(name).__name__}")
    encoded = name.encode("utf-8", errors="surrogatepass")
    if not encoded:
        raise InvalidDomainName("a domain name cannot be empty")
    if len(encoded) > MAXIMUM_DOMAIN_NAME_LENGTH:
        raise InvalidDomainName(f"domain name is {len(encoded)} bytes; at most {MAXIMUM_DOMAIN_NAME_LENGTH} are allowed")
    if name.startswith("."):
        raise InvalidDomainName(f'domain name "{name}" starts with a dot')
    for character in name:
        if not _ALLOWED.fullmatch(character):
            code = f"U+{ord(character):04X}"
            shown = f'"{character}" ({code})' if 0x20 <= ord(character) <= 0x7E else code
            escaped = name.encode("unicode_escape").decode("ascii")
            raise InvalidDomainName(
                f'domain name "{escaped}" contains {shown}; only A-Z, a-z, 0-9, ".", "_" and "-" are allowed')
    return name


def file_stem(domain: str) -> str:
    """The file-name stem of a domain: ``.GlobalPreferences`` for the global domain, else the name."""
    return GLOBAL_FILE_STEM if domain == GLOBAL_DOMAIN else domain


def read_machine_id(path: str = "/etc/machine-id") -> str | None:
    """The machine ID (32 hex digits, lower-cased), or None if there is none that looks like one."""
    try:
        with open(path, "rb") as handle:
            text = handle.read(4096).decode("utf-8", errors="replace").strip()
    except OSError:
        return None
    if len(text) != 32 or not all(c in "0123456789abcdefABCDEF" for c in text):
        return None
    return text.lower()


def _trim(path: str) -> str:
    trimmed = path.rstrip("/")
    return trimmed or "/"


@dataclass(frozen=True)
class Locations:
    """The preferences directories of one environment (see DESIGN.md, "Where domains live")."""

    user_directory: str
    system_directory: str
    machine_id: str | None
    runtime_directory: str | None
    home_directory: str

    @property
    def by_host_directory(self) -> str:
        """``<user dir>/ByHost``."""
        return self.user_directory + "/ByHost"

    @property
    def managed_directory(self) -> str:
        """``<system dir>/managed``."""
        return self.system_directory + "/managed"

    @staticmethod
    def from_environment(environment: Mapping[str, str] | None = None, machine_id: str | None | bool = True) -> "Locations":
        """Resolves the directories from ``environment`` (default: ``os.environ``).

        ``$PREFERENCES_HOME``, else ``$XDG_CONFIG_HOME/preferences`` (absolute only), else
        ``~/.config/preferences``; ``$PREFERENCES_SYSTEM_DIR`` else ``/etc/preferences``;
        the runtime directory ``$XDG_RUNTIME_DIR`` if absolute.
        """
        env = os.environ if environment is None else environment
        home = env.get("HOME", "")
        if not home.startswith("/"):
            try:
                home = pwd.getpwuid(os.geteuid()).pw_dir
            except KeyError:
                home = "/"
        home = _trim(home)
        explicit = env.get("PREFERENCES_HOME", "")
        config = env.get("XDG_CONFIG_HOME", "")
        if explicit:
            user = _trim(explicit)
        elif config.startswith("/"):
            user = _trim(config) + "/preferences" if _trim(config) != "/" else "/preferences"
        else:
            user = home + "/.config/preferences"
        system = env.get("PREFERENCES_SYSTEM_DIR", "")
        system = _trim(system) if system else "/etc/preferences"
        runtime = env.get("XDG_RUNTIME_DIR", "")
        runtime_directory = _trim(runtime) if runtime.startswith("/") else None
        if machine_id is True:
            resolved_id = read_machine_id()
        elif machine_id is False:
            resolved_id = None
        else:
            resolved_id = machine_id
        return Locations(user, system, resolved_id, runtime_directory, home)
