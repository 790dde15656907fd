"""Which environment variable an OpenAI-compatible endpoint's key is read from, and where it may be sent.

A plan comes from someone else as often as not, and `api_key_env` names the variable whose value goes out as
`Authorization: Bearer <value>`. So the name must look like a key (`*_API_KEY`, `*_TOKEN`, or one of
KEY_NAMES, the allow-list docs/models.md shows): a plan cannot send $HOME, $PATH or $AWS_SECRET_ACCESS_KEY's
neighbours to its URL. And a key that is set never travels over plain http to a host other than this machine's
loopback, where anyone on the path reads it. `api_key_env = ""` sends no key.
"""

from __future__ import annotations

import ipaddress
import os
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from bakeoff.models.errors import BackendOptionInvalid

KEY_NAME = re.compile(r"[A-Z][A-Z0-9_]*_(API_KEY|TOKEN)")
KEY_NAMES = frozenset({"API_KEY", "OPENAI_KEY"})  # names that do not end so but are keys (docs/models.md)
LOOPBACK_NAMES = frozenset({"localhost", "localhost."})


class ApiKeyNameRefused(BackendOptionInvalid):
    """`api_key_env` names a variable that does not look like an API key."""


class ApiKeyOverPlainHttp(BackendOptionInvalid):
    """A key would be sent over plain http to a host other than loopback."""


@dataclass(frozen=True)
class KeyRoute:
    """Which variable's value goes to which host, and how (what the preflight shows)."""

    variable: str
    host: str
    scheme: str
    is_set: bool

    def describe(self) -> str:
        if not self.variable:
            return f"no API key -> {self.host} (api_key_env is empty)"
        state = "set" if self.is_set else "not set: no key is sent"
        return f"${self.variable} ({state}) -> {self.host} over {self.scheme}"


def check_key_name(name: str) -> None:
    """ApiKeyNameRefused for a variable name that is neither *_API_KEY, *_TOKEN nor in KEY_NAMES ("" is none)."""
    if name and not (KEY_NAME.fullmatch(name) or name in KEY_NAMES):
        raise ApiKeyNameRefused(
            f"api_key_env = {name!r}: the variable's value would be sent as a bearer token, so it must name an "
            f"API key (*_API_KEY, *_TOKEN, or one of {', '.join(sorted(KEY_NAMES))}; see docs/models.md)")


def is_loopback(host: str) -> bool:
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    mapped = address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) else None
    return address.is_loopback or (mapped is not None and mapped.is_loopback)


def key_route(name: str, base_url: str) -> KeyRoute:
    """Where the key named `name` would go for `base_url`, checked: a bad name, or a key that is set and would
    cross plain http to another host, is refused by name."""
    check_key_name(name)
    parts = urlsplit(base_url)
    host = parts.hostname or ""
    route = KeyRoute(name, host, parts.scheme, bool(name and os.environ.get(name)))
    if route.is_set and parts.scheme != "https" and not is_loopback(host):
        raise ApiKeyOverPlainHttp(
            f"${name} would be sent to {host} over plain {parts.scheme}, readable on the way: use https, a "
            "loopback address (127.0.0.1, localhost), or api_key_env = \"\" to send no key")
    return route


def bearer_headers(name: str, base_url: str) -> dict[str, str]:
    """The Authorization header for `base_url` (none when the variable is empty or unset), checked by key_route."""
    route = key_route(name, base_url)
    return {"Authorization": f"Bearer {os.environ[name]}"} if route.is_set else {}
