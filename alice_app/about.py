"""What ALICE says about itself: OpenEnv's /metadata, the package metadata and the Hub cards."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

AUTHOR = "ALICE contributors"
DOCS_PATH = "/docs"  # the server's own API documentation (FastAPI), reachable wherever it runs


@lru_cache(maxsize=1)
def readme() -> str | None:
    """README.md of a checkout, else the installed package's long description (the same file)."""
    checkout = Path(__file__).resolve().parents[1] / "README.md"
    if checkout.is_file():
        return checkout.read_text(encoding="utf-8")
    try:
        from importlib.metadata import PackageNotFoundError, metadata

        return metadata("alice-app").get("Description") or None
    except PackageNotFoundError:
        return None
