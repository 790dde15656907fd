"""A Ray cluster's address, checked before a batch starts: its form when the plan is read, and, for a cluster
named by host and port, that something answers there within a deadline (a batch never waits on nothing).

Forms: `auto` (the cluster this machine's `ray start` made), `HOST:PORT` (a cluster's GCS), and
`ray://HOST:PORT` (Ray Client, which needs the `ray[client]` extra).
"""

from __future__ import annotations

import importlib.util
import re
import socket
from dataclasses import dataclass

from bakeoff.errors import BakeoffError

CONNECT_DEADLINE_S = 5.0
_HOST_PORT = re.compile(r"^(?P<host>\[[0-9A-Fa-f:]+\]|[A-Za-z0-9._-]+):(?P<port>[0-9]{1,5})$")


class RayAddressInvalid(BakeoffError):
    """An [executor] address (or --address) that is none of Ray's address forms."""


class RayClientUnavailable(BakeoffError):
    """A ray:// address was given, but Ray Client (the `ray[client]` extra) is not installed."""


class RayClusterUnreachable(BakeoffError):
    """Nothing answers at the Ray cluster's address within the connect deadline."""


@dataclass(frozen=True)
class RayAddress:
    text: str
    host: str | None = None  # None for `auto`
    port: int | None = None
    client: bool = False  # ray://


def parse_address(text: str) -> RayAddress:
    """The address's parts; RayAddressInvalid naming the forms for one that is none of them."""
    value = text.strip()
    if value == "auto":
        return RayAddress(value)
    client = value.startswith("ray://")
    found = _HOST_PORT.match(value[len("ray://"):] if client else value)
    port = int(found.group("port")) if found else 0
    if found is None or not 0 < port < 65536:
        raise RayAddressInvalid(f"a Ray address is auto, HOST:PORT or ray://HOST:PORT, got {text!r}")
    return RayAddress(value, found.group("host").strip("[]"), port, client)


def check_address(text: str, deadline_s: float = CONNECT_DEADLINE_S) -> RayAddress:
    """The parsed address, once its form is valid, Ray Client is there for a ray:// one, and something
    accepts a connection at HOST:PORT within `deadline_s`."""
    address = parse_address(text)
    if address.client and importlib.util.find_spec("grpc") is None:
        raise RayClientUnavailable(f"{text} is a Ray Client address, which needs Ray Client: pip install 'ray[client]' "
                                   "(or give the cluster's HOST:PORT from this machine)")
    if address.host is not None and address.port is not None:
        try:
            with socket.create_connection((address.host, address.port), timeout=deadline_s):
                pass
        except OSError as exc:
            raise RayClusterUnreachable(
                f"nothing answers at {address.host}:{address.port} within {deadline_s:g} s ({exc.strerror or exc}); "
                "start the cluster there (`ray start --head`) or give another --address") from None
    return address
