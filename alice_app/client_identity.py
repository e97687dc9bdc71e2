"""Who sent a request, for every per-client limit (the write budget, the workbench's queue, the admin
password's rate limit, the episodes a client owns): one rule for the server and the workbench.

The peer address, or behind a proxy (``ALICE_BEHIND_PROXY``) the last ``X-Forwarded-For`` entry, the
one the proxy added (the first entries are the client's own writing). An IPv6 address counts as its /64
network: one subscriber holds a whole /64, and would otherwise be 2^64 clients.
"""
from __future__ import annotations

import ipaddress


def client_identity(peer: str | None, forwarded_for: str | None, behind_proxy: bool) -> str:
    """The client's key: an IPv4 address, an IPv6 /64 network, another peer name (bounded) or "unknown"."""
    address = (forwarded_for or "").split(",")[-1].strip() if behind_proxy else ""
    return _network_of(address or (peer or "").strip()) or "unknown"


def _network_of(address: str) -> str:
    try:
        ip = ipaddress.ip_address(address.strip("[]"))
    except ValueError:
        return address[:64]  # not an address (a unix socket, a test client): itself, bounded
    if ip.version == 4:
        return str(ip)
    if ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ipaddress.ip_network(f"{ip}/64", strict=False))
