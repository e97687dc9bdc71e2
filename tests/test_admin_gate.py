"""The admin password gate of the workbench's guarded writes, with its rate limit."""
import pytest

from alice_app.services import AdminGate


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def test_no_password_configured_lets_everything_through():
    AdminGate(None).check(None)
    AdminGate("").check("anything")
    assert not AdminGate(None).required


def test_the_right_password_passes_and_a_wrong_one_is_refused():
    gate = AdminGate("s3cret")
    gate.check("s3cret")
    with pytest.raises(PermissionError, match="admin password"):
        gate.check("wrong")
    with pytest.raises(PermissionError, match="admin password"):
        gate.check(None)


def test_wrong_guesses_are_rate_limited_per_client_then_forgiven():
    clock = Clock()
    gate = AdminGate("s3cret", per_client=3, window_s=60, clock=clock)
    for _ in range(3):
        with pytest.raises(PermissionError, match="needs the admin password"):
            gate.check("guess", who="1.2.3.4")
    with pytest.raises(PermissionError, match="Too many wrong admin passwords; try again in 60 s"):
        gate.check("s3cret", who="1.2.3.4")  # even the right one, while locked out
    gate.check("s3cret", who="5.6.7.8")  # another client is not locked out
    clock.now += 61
    gate.check("s3cret", who="1.2.3.4")


def test_an_overall_cap_stops_guessing_from_many_addresses():
    gate = AdminGate("s3cret", per_client=100, overall=10, clock=Clock())
    for i in range(10):
        with pytest.raises(PermissionError):
            gate.check("guess", who=f"10.0.0.{i}")
    with pytest.raises(PermissionError, match="Too many"):
        gate.check("guess", who="10.0.0.99")


def test_the_overall_cap_does_not_lock_out_a_client_that_logged_in_before():
    clock = Clock()
    gate = AdminGate("s3cret", per_client=3, overall=10, clock=clock)
    gate.check("s3cret", who="admin")  # the admin, earlier in the day
    clock.now += 3600
    for i in range(10):  # then guessing from ten addresses reaches the overall cap
        with pytest.raises(PermissionError):
            gate.check("guess", who=f"10.0.0.{i}")
    gate.check("s3cret", who="admin")  # the admin still gets in
    with pytest.raises(PermissionError, match="Too many"):
        gate.check("s3cret", who="10.0.0.99")  # a guesser with the right password does not: still capped
    for _ in range(3):
        with pytest.raises(PermissionError, match="needs the admin password"):
            gate.check("typo", who="admin")
    with pytest.raises(PermissionError, match="Too many"):
        gate.check("s3cret", who="admin")  # its own limit still holds
    clock.now += 24 * 3600
    for i in range(10):
        with pytest.raises(PermissionError):
            gate.check("guess", who=f"10.0.1.{i}")
    with pytest.raises(PermissionError, match="Too many"):
        gate.check("s3cret", who="admin")  # trust ends a day after the last login
