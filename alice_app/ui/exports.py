"""Downloads of the Failure bank tab: the bank as JSONL (under the current filter) and as DPO
pairs; each file lands in a private folder under the temp dir's ``alice-exports``."""
from __future__ import annotations

import json
import shutil
import tempfile
import time
from pathlib import Path

from alice_app.services import export_dpo_pairs

EXPORTS_KEPT_SECONDS = 24 * 3600


def export_path(filename: str) -> Path:
    """A fresh file for one download, in a private folder under the temp dir's ``alice-exports``;
    exports older than a day are removed on the way, so downloads do not pile up in /tmp."""
    root = Path(tempfile.gettempdir()) / "alice-exports"
    root.mkdir(exist_ok=True)
    cutoff = time.time() - EXPORTS_KEPT_SECONDS
    for old in root.iterdir():
        try:
            if old.stat().st_mtime < cutoff:
                shutil.rmtree(old, ignore_errors=True)
        except OSError:
            continue  # another session removed it first
    return Path(tempfile.mkdtemp(dir=root)) / filename


def export_jsonl(services, filters: dict):
    """Every failure matching ``filters`` (FailureBank.query's keyword arguments), one JSON line each."""
    path = export_path("failures.jsonl")
    count = 0
    with path.open("w", encoding="utf-8") as out:
        for row in services.bank.iter_rows(**filters):
            out.write(json.dumps(row, default=str) + "\n")
            count += 1
    return str(path), f"Exported {count:,} failures as JSONL."


def export_dpo(services, filters: dict | None = None):
    """DPO pairs of the failures matching ``filters`` (all of them when None)."""
    path = export_path("dpo_pairs.jsonl")
    try:  # chosen = the task's exact answer in the answer format, checked by the verifier
        count = export_dpo_pairs(services, path, filters)
    except Exception as exc:  # report the exporter's own message instead of a blank failure
        return None, f"⚠ DPO export failed: {exc}"
    return str(path), (f"Exported {count:,} DPO pair{'' if count == 1 else 's'} (prompt, chosen, rejected) as JSONL; "
                       "load with datasets.load_dataset('json', data_files=...).")
