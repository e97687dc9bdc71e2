"""Downloads of the Failure bank tab: the bank as JSONL (under the current filter) and as DPO
pairs; each file lands in a private folder under ``alice-exports`` in Gradio's file cache."""
from __future__ import annotations

import json
import shutil
import tempfile
import time
from pathlib import Path

from gradio.utils import get_upload_folder

from alice_app.services import export_dpo_pairs

EXPORTS_KEPT_SECONDS = 24 * 3600
# Downloads kept at once, the newest: a JSONL export of a 100k-row bank is 145 MB, and a visitor
# may export as often as the queue lets them (ten exports filled 1.8 GB of /tmp in 49 s).
EXPORTS_KEPT = 8


def export_path(filename: str) -> Path:
    """A fresh file for one download, in a private folder under ``alice-exports`` in Gradio's file
    cache (a file already there is served as it is, not copied into the cache a second time).
    Only the newest EXPORTS_KEPT downloads, none older than a day, are kept, so downloads cannot
    fill the disk."""
    root = Path(get_upload_folder()) / "alice-exports"
    root.mkdir(parents=True, exist_ok=True)
    _prune(root, keep=EXPORTS_KEPT - 1)
    return Path(tempfile.mkdtemp(dir=root)) / filename


def _prune(root: Path, keep: int) -> None:
    cutoff, folders = time.time() - EXPORTS_KEPT_SECONDS, []
    for folder in root.iterdir():
        try:
            folders.append((folder.stat().st_mtime, folder))
        except OSError:
            continue  # another session removed it first
    folders.sort(reverse=True)
    for rank, (mtime, folder) in enumerate(folders):
        if rank >= keep or mtime < cutoff:
            shutil.rmtree(folder, ignore_errors=True)


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
