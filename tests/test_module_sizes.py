"""No Python module over 400 lines (issue 35): a longer module is split by responsibility.

Covers the Python under python/ (the fastwindow package and the build backend) and under tests/
(test files, their helpers and the apps they run): a longer test file is split by topic.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 400
CHECKED = ("python", "tests")
#: Directories of generated or installed files, never modules of this project.
SKIPPED_DIRS = {"__pycache__", "build", "dist", ".venv"}


def _modules():
    for top in CHECKED:
        for path in sorted((ROOT / top).rglob("*.py")):
            rel = path.relative_to(ROOT)
            if not SKIPPED_DIRS.intersection(rel.parts) and \
                    not any(p.endswith(".egg-info") for p in rel.parts):
                yield rel.as_posix(), path


def _lines(path: Path) -> int:
    with open(path, encoding="utf-8") as f:
        return sum(1 for _ in f)


def test_no_python_module_over_400_lines():
    sizes = {name: _lines(path) for name, path in _modules()}
    assert "python/fastwindow/bench.py" in sizes and "python/fastwindow/cli.py" in sizes
    assert "python/_build_backend/fastwindow_backend.py" in sizes
    assert "tests/conftest.py" in sizes and "tests/apps/window_app.py" in sizes
    offenders = [f"{name} ({n} lines)" for name, n in sizes.items() if n > MAX_LINES]
    assert not offenders, (
        f"over {MAX_LINES} lines (split by responsibility; see issue 35): " + ", ".join(offenders))

