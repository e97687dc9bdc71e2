"""One rule tells clients apart for the server's guard and the workbench's admin check."""
from types import SimpleNamespace

import pytest

from alice_app.client_identity import client_identity
from alice_app.ui.guard import client_key as ui_client_key


def test_behind_a_proxy_the_last_entry_counts_never_the_client_s_own():
    assert client_identity("10.0.0.9", "6.6.6.6, 203.0.113.7", behind_proxy=True) == "203.0.113.7"
    assert client_identity("10.0.0.9", "6.6.6.6, 203.0.113.7", behind_proxy=False) == "10.0.0.9"
    assert client_identity("10.0.0.9", None, behind_proxy=True) == "10.0.0.9"  # no header: the peer
    assert client_identity(None, None, behind_proxy=False) == "unknown"


def test_an_ipv6_subscriber_is_one_client_however_many_addresses_it_uses():
    keys = {client_identity(f"2001:db8:1:2:{i:x}::1", None, False) for i in range(1000)}
    assert keys == {"2001:db8:1:2::/64"}
    assert client_identity("2001:db8:1:3::1", None, False) != "2001:db8:1:2::/64"
    assert client_identity("::ffff:203.0.113.7", None, False) == "203.0.113.7"


def test_a_name_that_is_no_address_is_kept_bounded():
    assert client_identity("testclient", None, False) == "testclient"
    assert client_identity("x" * 10_000, None, False) == "x" * 64


@pytest.mark.parametrize("behind_proxy", [False, True])
def test_the_workbench_reads_a_gradio_request_by_the_same_rule(behind_proxy):
    request = SimpleNamespace(headers={"x-forwarded-for": "6.6.6.6, 2001:db8::5"}, client=SimpleNamespace(host="10.0.0.9"))
    expected = "2001:db8::/64" if behind_proxy else "10.0.0.9"
    assert ui_client_key(request, behind_proxy) == expected
