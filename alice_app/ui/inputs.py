"""Pure parsers for what users type: ids, tags, dates, seeds, filter choices, the admin password.

Each raises ValueError (PermissionError for the password) with a message the UI shows as is.
"""
from __future__ import annotations

import datetime as dt
import re
from typing import Any

ALL = "(all)"  # the "no filter" choice in every filter dropdown
_ID_RANGE = re.compile(r"^(\d+)\s*-\s*(\d+)$")


def optional_id(value: Any) -> int | None:
    """A row id typed in a box; blank (or 0, what an empty number box sends) means none."""
    text = str(value if value is not None else "").strip()
    if text in ("", "0"):
        return None
    try:
        return int(float(text))
    except ValueError:
        raise ValueError(f"{text!r} is not an id; type a whole number such as 12.") from None


def parse_seed(text: Any) -> int | None:
    text = str(text if text is not None else "").strip()
    if not text:
        return None
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"Seed {text!r} is not a whole number; leave it blank for a random task.") from None


def parse_tags(text: str | None) -> list[str]:
    tags = [t.strip().lower() for t in str(text or "").split(",")]
    bad = [t for t in tags if t and not re.fullmatch(r"[\w.:\-]+", t)]
    if bad:
        raise ValueError(f"Tags may hold letters, digits, '_', '-', '.', ':' only (not {bad[0]!r}).")
    return list(dict.fromkeys(t for t in tags if t))


def parse_date(text: str | None) -> str | None:
    """'2026-11-30' → the same date, checked (the bank treats an 'until' date as inclusive); blank → None."""
    text = str(text or "").strip()
    if not text:
        return None
    try:
        day = dt.date.fromisoformat(text)
    except ValueError:
        raise ValueError(f"Date {text!r} is not valid; write it as YYYY-MM-DD, e.g. 2026-11-30.") from None
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
                raise ValueError(f"Range {part!r} runs backwards; write it low-high, e.g. 10-12.")
            ids.extend(range(low, high + 1))
        elif part.isdigit():
            ids.append(int(part))
        else:
            raise ValueError(f"{part!r} is not a failure id; use numbers and ranges like '3, 7, 10-12'.")
        if len(ids) > limit:
            raise ValueError(f"At most {limit:,} ids at once; narrow the range.")
    return list(dict.fromkeys(ids))


def check_admin(required: str | None, given: str | None) -> None:
    """Raise PermissionError unless no password is configured or the right one was typed."""
    if required and (given or "") != required:
        raise PermissionError("This action needs the admin password (ALICE_ADMIN_PASSWORD). Type it in the password box.")

