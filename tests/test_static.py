"""Static check: no module refers to a name it never defines (a typo or a half-done rename that only
a rarely-run path, such as a slow test, would otherwise find)."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHECKED = ["alice_app", "bench", "examples", "tests", "app.py"]


def test_no_undefined_names():
    out = subprocess.run([sys.executable, "-m", "pyflakes", *CHECKED], cwd=ROOT,
                         capture_output=True, text=True).stdout
    undefined = [line for line in out.splitlines() if "undefined name" in line]
    assert not undefined, "\n".join(undefined)


def test_the_check_sees_an_undefined_name(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    return settings.db_path\n")
    out = subprocess.run([sys.executable, "-m", "pyflakes", str(bad)], capture_output=True, text=True).stdout
    assert "undefined name 'settings'" in out
