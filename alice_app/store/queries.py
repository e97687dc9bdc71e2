"""Pure helpers that turn failure-bank filters into a parameterised WHERE clause."""
from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from typing import Any, Iterable, Sequence

from alice_app.types import MAX_SEED  # the largest SQLite INTEGER: seeds and row ids share it

MAX_PAGE_SIZE = 1000
MAX_SEARCH_CHARS = 1000
MAX_SEARCH_WORDS = 8  # each word is a prefix scan: 32 common words took 0.9 s on 50,000 rows, 8 take ~0.06 s on 20,000
MAX_IDS = 10_000  # ids one call may change
MAX_TAG_CHARS = 64
FILTER_NAMES = ("family", "level", "mode", "tag", "repaired", "search", "since", "until", "source")


@dataclass(frozen=True)
class Page:
    """One page of query results; ``total`` counts every matching row, not just this page."""

    rows: list[dict]
    total: int
    page: int
    page_size: int

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.page_size))


def validate_page(page: int, page_size: int) -> None:
    if not isinstance(page, int) or page < 1:
        raise ValueError(f"page must be a whole number >= 1, not {page!r}")
    if not isinstance(page_size, int) or not 1 <= page_size <= MAX_PAGE_SIZE:
        raise ValueError(f"page_size must be between 1 and {MAX_PAGE_SIZE}, not {page_size!r}")


def fts_query(text: str) -> str | None:
    """User text → an FTS5 query: every word must match, as a prefix; FTS syntax is neutralised.

    Bounded, so that one search cannot hold the database for seconds: at most MAX_SEARCH_CHARS
    characters and MAX_SEARCH_WORDS words, no control characters (NUL included).
    """
    if not isinstance(text, str):
        raise ValueError(f"search must be text, not {type(text).__name__}")
    if len(text) > MAX_SEARCH_CHARS:
        raise ValueError(f"search text is limited to {MAX_SEARCH_CHARS:,} characters (got {len(text):,})")
    if any(ord(c) < 32 and c not in "\t\n" for c in text):
        raise ValueError("search text holds a control character (e.g. NUL); use plain words")
    words = [word.replace('"', '""') for word in text.split()]
    if len(words) > MAX_SEARCH_WORDS:
        raise ValueError(f"search is limited to {MAX_SEARCH_WORDS} words (got {len(words)})")
    return " ".join(f'"{word}"*' for word in words) or None


def to_timestamp(value: Any, *, end: bool) -> tuple[str, str]:
    """A since/until bound → (operator, ISO timestamp). A bare date as ``until`` includes that day."""
    if isinstance(value, datetime):
        stamp = value.astimezone(timezone.utc) if value.tzinfo else value.replace(tzinfo=timezone.utc)
        return (">=" if not end else "<="), stamp.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    if isinstance(value, date):
        value = value.isoformat()
    if not isinstance(value, str):
        raise ValueError(f"since/until must be a date, a datetime or an ISO string, not {value!r}")
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"since/until must look like 2026-11-30 or 2026-11-30T09:00:00Z, not {value!r}") from None
    if len(value) == 10:  # a bare date
        if end:
            return "<", (parsed + timedelta(days=1)).date().isoformat()
        return ">=", value
    return to_timestamp(parsed, end=end)


def _one_or_many(column: str, value: Any) -> tuple[str, list]:
    if isinstance(value, (list, tuple, set, frozenset)):
        values = list(value)
        return f"{column} IN ({', '.join('?' for _ in values)})", values
    return f"{column} = ?", [value]


def where_clause(
    *,
    family: str | Sequence[str] | None = None,
    level: str | Sequence[str] | None = None,
    mode: str | Sequence[str] | None = None,
    tag: str | None = None,
    repaired: bool | None = None,
    search: str | None = None,
    since: Any = None,
    until: Any = None,
    source: str | Sequence[str] | None = None,
) -> tuple[str, list]:
    """Build ``WHERE ...`` (or "") and its parameters. Empty values mean "no filter"."""
    parts: list[str] = []
    params: list = []
    for column, value in (("family", family), ("level", level), ("mode", mode), ("source", source)):
        if value not in (None, "", [], ()):
            sql, values = _one_or_many(column, value)
            parts.append(sql)
            params += values
    if tag:
        parts.append("id IN (SELECT failure_id FROM failure_tags WHERE tag = ?)")
        params.append(tag.strip().lower())
    if repaired is not None:
        # "+repaired": a two-valued column is a poor index; without it SQLite (which has no
        # statistics here: ANALYZE of a young bank misleads it later) may scan half the table.
        parts.append("+repaired = ?")
        params.append(1 if repaired else 0)
    match = fts_query(search or "")
    if match:
        # "+id" keeps SQLite from driving the query by the match list: it walks the last_seen
        # index instead and stops after one page, so common words (thousands of matches) stay fast.
        parts.append("+id IN (SELECT rowid FROM failures_fts WHERE failures_fts MATCH ?)")
        params.append(match)
    for value, end in ((since, False), (until, True)):
        if value not in (None, ""):
            operator, stamp = to_timestamp(value, end=end)
            parts.append(f"last_seen {operator} ?")
            params.append(stamp)
    return ("WHERE " + " AND ".join(parts)) if parts else "", params


def clean_tags(tags: Iterable[str] | str) -> list[str]:
    """Trim, lowercase, drop empties and duplicates; a single string is one tag, not its characters."""
    if isinstance(tags, str):
        tags = [tags]
    cleaned: list[str] = []
    for tag in tags:
        if not isinstance(tag, str):
            raise ValueError(f"tags must be strings, not {tag!r}")
        tag = tag.strip().lower()
        if len(tag) > MAX_TAG_CHARS:
            raise ValueError(f"a tag is at most {MAX_TAG_CHARS} characters: {tag[:20]!r}...")
        if any(ord(c) < 32 for c in tag):
            raise ValueError(f"a tag cannot hold control characters: {tag[:20]!r}")
        if tag and tag not in cleaned:
            cleaned.append(tag)
    return cleaned


def row_to_dict(row: dict) -> dict:
    """A failures row → the public dict: JSON columns decoded, flags as bools, internals dropped."""
    out = dict(row)
    out.pop("answer_key", None)
    out["verdict"] = json.loads(row["verdict"])
    out["task"] = json.loads(row["task"])
    out["tags"] = json.loads(row["tags"])
    out["history"] = json.loads(row.get("history") or "[]")
    out["repaired"] = bool(row["repaired"])
    return out


def checked_ids(ids: Sequence[int]) -> list[int]:
    """``ids`` as ints, at most MAX_IDS of them (counted before anything is converted)."""
    if isinstance(ids, (str, bytes)) or not hasattr(ids, "__len__"):
        raise ValueError(f"ids must be a list of whole numbers, not {type(ids).__name__}")
    if len(ids) > MAX_IDS:
        raise ValueError(f"at most {MAX_IDS:,} ids per call (got {len(ids):,}); narrow the selection")
    return [one_id(i) for i in ids]


def one_id(value: Any) -> int:
    """A row id: a whole number SQLite's INTEGER can hold, else ValueError."""
    try:
        number = int(value)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"an id is a whole number, not {str(value)[:40]!r}") from None
    if isinstance(value, float) and value != number or not -MAX_SEED - 1 <= number <= MAX_SEED:
        raise ValueError(f"no failure has id {str(value)[:40]}")
    return number


def chunks(ids: Sequence[int], size: int = 500) -> Iterable[list[int]]:
    ids = checked_ids(ids)
    for start in range(0, len(ids), size):
        yield ids[start:start + size]
