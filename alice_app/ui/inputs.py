"""Pure parsers for what users type: ids, tags, dates, seeds, numbers, pages, search text, filters.

Each raises ValueError with a message the UI shows as is (naming the box and the bound), so no
input ends in Gradio's generic "Error".
"""
from __future__ import annotations

import datetime as dt
import math
import re
from typing import Any

from alice_app.types import MAX_SEED, check_seed

ALL = "(all)"  # the "no filter" choice in every filter dropdown
_ID_RANGE = re.compile(r"^([0-9]{1,30})\s*-\s*([0-9]{1,30})$")
MAX_ID = 2**63 - 1  # SQLite's INTEGER range: a larger id can name no row
MAX_TAG = 64
MAX_SEARCH = 500  # characters of a bank search
MAX_PAGE = 1_000_000


def optional_id(value: Any) -> int | None:
    """A row id typed in a box; blank (or 0, what an empty number box sends) means none."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = str(value if value is not None else "").strip()
    if text in ("", "0"):
        return None
    if not re.fullmatch(r"[0-9]{1,19}", text) or int(text) > MAX_ID:
        raise ValueError(f"{shown(text)} is not an id; type a whole number such as 12.")
    return int(text)


def shown(text: Any, limit: int = 40) -> str:
    """User text quoted for a message: control characters escaped, long text cut."""
    text = str(text)
    return repr(text if len(text) <= limit else text[:limit] + "…")


def parse_seed(text: Any) -> int | None:
    """A typed seed in 0..2^63-1 (``types.check_seed``'s bound, with its message); blank → None."""
    text = str(text if text is not None else "").strip()
    if not text:
        return None
    if not re.fullmatch(r"[+-]?[0-9]{1,40}", text):
        raise ValueError(f"Seed {shown(text)} is not a whole number from 0 to {MAX_SEED}; "
                         "leave it blank for a random task.")
    try:
        return check_seed(int(text))
    except ValueError as exc:
        raise ValueError(f"Seed: {exc}.") from None


def parse_number(label: str, value: Any, *, whole: bool = False, low: float | None = None,
                 high: float | None = None) -> int | float:
    """A number typed in the box called ``label``; blank, text, inf/nan or out of range → ValueError."""
    text = str(value if value is not None else "").strip()
    if not text:
        raise ValueError(f"{label} is blank; type a number.")
    try:
        number = float(text)
    except ValueError:
        raise ValueError(f"{label}: {shown(text)} is not a number.") from None
    if not math.isfinite(number):
        raise ValueError(f"{label}: {shown(text)} is not a finite number.")
    if whole and number != int(number):
        raise ValueError(f"{label} must be a whole number, not {shown(text)}.")
    if (low is not None and number < low) or (high is not None and number > high):
        raise ValueError(f"{label} must be {_range(low, high)}, not {shown(text)}.")
    return int(number) if whole else number


def parse_fraction(label: str, value: Any, *, low: float = 0.0, high: float = 1.0) -> float:
    """A share typed as a fraction or a percentage ("0.3" or "30%" → 0.3), within low..high;
    anything else → ValueError naming the box, as ``parse_number``."""
    text = str(value if value is not None else "").strip()
    if not text.endswith("%"):
        return parse_number(label, text, low=low, high=high)
    try:
        number = float(text[:-1]) / 100
    except ValueError:
        raise ValueError(f"{label}: {shown(text)} is not a percentage; type e.g. 30% or 0.3.") from None
    if not math.isfinite(number):
        raise ValueError(f"{label}: {shown(text)} is not a finite number.")
    if not low <= number <= high:
        raise ValueError(f"{label} must be between {100 * low:g}% and {100 * high:g}%, not {shown(text)}.")
    return number


def _range(low: float | None, high: float | None) -> str:
    if high is None:
        return f"at least {_plain(low)}"
    if low is None:
        return f"at most {_plain(high)}"
    return f"between {_plain(low)} and {_plain(high)}"


def _plain(bound: float) -> str:
    return f"{bound:g}" if isinstance(bound, float) else f"{bound:,}"


def parse_page(value: Any) -> int:
    """The page box: anything unreadable or below 1 is page 1, anything huge the last page cap."""
    try:
        return parse_number("Page", value, whole=True, low=1, high=MAX_PAGE)
    except ValueError:
        text = str(value or "").strip()
        return MAX_PAGE if _looks_big(text) else 1


def page_problem(value: Any) -> str | None:
    """Why ``parse_page`` falls back to page 1 for what the box holds (e.g. "abc"), as a message;
    None for a page, a blank box, or a number past the cap (that is the last page, not a mistake)."""
    text = str(value if value is not None else "").strip()
    if not text or _looks_big(text):
        return None
    try:
        parse_number("Page", text, whole=True, low=1)
    except ValueError as exc:
        return f"{str(exc).rstrip('.')}; showing page 1."
    return None


def _looks_big(text: str) -> bool:
    try:
        return float(text) > MAX_PAGE
    except ValueError:
        return False


def parse_search(text: Any) -> str | None:
    """The bank search text: control characters (NUL included) refused, length bounded."""
    text = str(text or "").strip()
    if any(ord(c) < 32 and c not in "\t" for c in text):
        raise ValueError("Search text holds a control character (e.g. NUL); type plain words.")
    if len(text) > MAX_SEARCH:
        raise ValueError(f"Search text is limited to {MAX_SEARCH} characters (got {len(text):,}).")
    return text or None


def parse_tag_filter(text: Any) -> str | None:
    """The Tag filter box: one tag, at most MAX_TAG characters (as ``parse_tags`` allows), lowercased."""
    tag = str(text or "").strip().lower()
    if len(tag) > MAX_TAG:
        raise ValueError(f"Tag filter: a tag is at most {MAX_TAG} characters (got {len(tag):,}).")
    return filter_value(tag)


def parse_tags(text: str | None) -> list[str]:
    tags = [t.strip().lower() for t in str(text or "").split(",")]
    bad = [t for t in tags if t and not re.fullmatch(r"[\w.:\-]+", t)]
    if bad:
        raise ValueError(f"Tags may hold letters, digits, '_', '-', '.', ':' only (not {shown(bad[0])}).")
    long = [t for t in tags if len(t) > MAX_TAG]
    if long:
        raise ValueError(f"A tag is at most {MAX_TAG} characters ({shown(long[0], 20)} has {len(long[0])}).")
    return list(dict.fromkeys(t for t in tags if t))


def parse_date(text: str | None) -> str | None:
    """'2026-11-30' → the same date, checked (the bank treats an 'until' date as inclusive); blank → None."""
    text = str(text or "").strip()
    if not text:
        return None
    try:
        day = dt.date.fromisoformat(text)
    except ValueError:
        raise ValueError(f"Date {shown(text)} is not valid; write it as YYYY-MM-DD, e.g. 2026-11-30.") from None
    return day.isoformat()


def filter_value(choice: Any) -> Any:
    """Map the '(all)' dropdown choice and blanks to None (no filter)."""
    return None if choice in (None, "", ALL) else choice


def parse_repaired(choice: str | None) -> bool | None:
    return {"repaired": True, "unrepaired": False}.get(str(choice or ""))


def parse_ids(text: str | None, limit: int = 10_000) -> list[int]:
    """'3, 7, 10-12' → [3, 7, 10, 11, 12]; anything else is a ValueError naming the bad part."""
    ids: list[int] = []
    for part in filter(None, (p.strip() for p in str(text or "").replace(";", ",").split(","))):
        span = _ID_RANGE.match(part)
        if span:
            low, high = int(span[1]), int(span[2])
            if high < low:
                raise ValueError(f"Range {shown(part)} runs backwards; write it low-high, e.g. 10-12.")
            if high > MAX_ID:
                raise ValueError(f"{shown(part)} names ids above {MAX_ID}; no failure has such an id.")
            if high - low + 1 + len(ids) > limit:  # checked before expanding: "1-10**9" allocates nothing
                raise ValueError(f"At most {limit:,} ids at once; narrow the range.")
            ids.extend(range(low, high + 1))
        elif re.fullmatch(r"[0-9]{1,19}", part) and int(part) <= MAX_ID:
            ids.append(int(part))
        else:
            raise ValueError(f"{shown(part)} is not a failure id; use numbers and ranges like '3, 7, 10-12'.")
        if len(ids) > limit:
            raise ValueError(f"At most {limit:,} ids at once; narrow the range.")
    return list(dict.fromkeys(ids))
