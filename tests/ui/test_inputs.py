import pytest

from alice_app.ui import inputs


def test_parse_ids():
    assert inputs.parse_ids("3, 7; 10-12, 7") == [3, 7, 10, 11, 12]
    assert inputs.parse_ids("") == [] and inputs.parse_ids(None) == []
    with pytest.raises(ValueError, match="not a failure id"):
        inputs.parse_ids("3, x")
    with pytest.raises(ValueError, match="backwards"):
        inputs.parse_ids("12-10")
    with pytest.raises(ValueError, match="At most"):
        inputs.parse_ids("1-20000")


def test_parse_tags():
    assert inputs.parse_tags(" Review, needs-fix ,review,") == ["review", "needs-fix"]
    with pytest.raises(ValueError, match="Tags may hold"):
        inputs.parse_tags("bad tag!")


def test_parse_date():
    assert inputs.parse_date(" 2026-11-30 ") == "2026-11-30"
    assert inputs.parse_date("") is None
    with pytest.raises(ValueError, match="YYYY-MM-DD"):
        inputs.parse_date("30/11/2026")


def test_filter_helpers():
    assert inputs.filter_value(inputs.ALL) is None and inputs.filter_value("") is None and inputs.filter_value("x") == "x"
    assert inputs.parse_repaired("repaired") is True and inputs.parse_repaired("unrepaired") is False
    assert inputs.parse_repaired(inputs.ALL) is None


def test_check_admin():
    inputs.check_admin(None, None)
    inputs.check_admin("s3cret", "s3cret")
    with pytest.raises(PermissionError, match="admin password"):
        inputs.check_admin("s3cret", "wrong")


def test_optional_id_treats_an_empty_number_box_as_blank():
    assert inputs.optional_id(0) is None and inputs.optional_id(None) is None and inputs.optional_id("") is None
    assert inputs.optional_id(7.0) == 7 and inputs.optional_id(" 12 ") == 12
    with pytest.raises(ValueError, match="not an id"):
        inputs.optional_id("x")


def test_parse_seed():
    assert inputs.parse_seed(" 0 ") == 0 and inputs.parse_seed("") is None and inputs.parse_seed(None) is None
    with pytest.raises(ValueError, match="whole number"):
        inputs.parse_seed("seven")
