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


def test_optional_id_treats_an_empty_number_box_as_blank():
    assert inputs.optional_id(0) is None and inputs.optional_id(None) is None and inputs.optional_id("") is None
    assert inputs.optional_id(7.0) == 7 and inputs.optional_id(" 12 ") == 12
    with pytest.raises(ValueError, match="not an id"):
        inputs.optional_id("x")


def test_parse_seed():
    assert inputs.parse_seed(" 0 ") == 0 and inputs.parse_seed("") is None and inputs.parse_seed(None) is None
    with pytest.raises(ValueError, match="whole number"):
        inputs.parse_seed("seven")


@pytest.mark.parametrize("text", ["9223372036854775808", "18446744073709551616", "-1", "seven", "1e5", "７", "inf"])
def test_parse_seed_refuses_what_sqlite_cannot_hold(text):  # issue 12 bug 1
    with pytest.raises(ValueError, match="9223372036854775807"):
        inputs.parse_seed(text)
    assert inputs.parse_seed("9223372036854775807") == 2**63 - 1


@pytest.mark.parametrize("value, message", [
    ("", "is blank"), (None, "is blank"), ("abc", "is not a number"), ("inf", "not a finite number"),
    ("nan", "not a finite number"), ("1e400", "not a finite number"), ("2.5", "whole number"),
    ("1e20", "between 1 and 1,000"), ("0", "between 1 and 1,000"),
])
def test_parse_number_names_the_box(value, message):
    with pytest.raises(ValueError, match=message) as caught:
        inputs.parse_number("Window (answers)", value, whole=True, low=1, high=1000)
    assert str(caught.value).startswith("Window (answers)")
    assert inputs.parse_number("Beta", " 0.25 ", low=0) == 0.25


def test_page_numbers_never_overflow():
    assert inputs.parse_page("1e20") == inputs.MAX_PAGE and inputs.parse_page("abc") == 1
    assert inputs.parse_page("-3") == 1 and inputs.parse_page(4.0) == 4 and inputs.parse_page(None) == 1


def test_ids_and_tags_have_bounds():
    with pytest.raises(ValueError, match="At most"):
        inputs.parse_ids("1-1000000000")  # refused before the range is expanded (issue 14.4)
    with pytest.raises(ValueError, match="above"):
        inputs.parse_ids("9223372036854775808-9223372036854775809")
    with pytest.raises(ValueError, match="not an id"):
        inputs.optional_id("99999999999999999999")
    with pytest.raises(ValueError, match="at most 64 characters"):
        inputs.parse_tags("x" * 65)


def test_search_text_refuses_control_characters_and_huge_text():
    assert inputs.parse_search("  negation ") == "negation" and inputs.parse_search("") is None
    with pytest.raises(ValueError, match="control character"):
        inputs.parse_search("a\x00b")
    with pytest.raises(ValueError, match="limited to 500"):
        inputs.parse_search("a" * 501)


@pytest.mark.parametrize("typed, share", [("30%", 0.3), (" 30 %", 0.3), ("0.3", 0.3), ("100%", 1.0), ("0%", 0.0)])
def test_a_share_may_be_typed_as_a_percentage(typed, share):  # the curriculum summary writes "repair mix 30%"
    assert inputs.parse_fraction("Hunt/repair mix", typed) == pytest.approx(share)


@pytest.mark.parametrize("typed, message", [
    ("150%", r"Hunt/repair mix must be between 0% and 100%, not '150%'"),
    ("abc%", r"'abc%' is not a percentage; type e.g. 30% or 0.3"),
    ("inf%", "not a finite number"),
    ("1.5", "must be between 0 and 1, not '1.5'"),
    ("", "is blank"),
])
def test_a_bad_share_is_named(typed, message):
    with pytest.raises(ValueError, match=message):
        inputs.parse_fraction("Hunt/repair mix", typed)


def test_a_page_that_is_not_a_page_number_is_said():
    assert inputs.page_problem("abc") == "Page: 'abc' is not a number; showing page 1."
    assert "whole number" in inputs.page_problem("2.5") and "at least 1" in inputs.page_problem("-5")
    for fine in ("3", 4.0, "", None, "1e20", "inf"):  # a page, blank, or past the cap (the last page)
        assert inputs.page_problem(fine) is None
