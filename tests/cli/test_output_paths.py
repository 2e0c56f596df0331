"""Output paths from issue 11: checked before any work, one line and exit 2, nothing half-written.

Before: -o/--plot/--csv into a missing folder, /dev/full or /proc were tracebacks, and
`-o a.json --plot p.bmpx` wrote a.json before rejecting the suffix.
"""

from __future__ import annotations

import pytest

from tests.conftest import run_main as run


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("analyze", "-o", "a.json", "--plot", "p.bmpx"), "p.bmpx: the file must end in .png or .svg, not .bmpx"),
        (("analyze", "-o", "missing/a.json"), "missing/a.json: folder missing does not exist"),
        (("analyze", "-o", "/dev/full"), "/dev/full: exists and is not a regular file"),
        (("analyze", "--report", "/proc/r.html"), "/proc/r.html: cannot write in /proc"),
        (("analyze", "-o", "a.json", "--plot", "/proc/p.png"), "/proc/p.png: cannot write in /proc"),
        (("sweep", "--csv", "missing/c.csv", "-o", "a.json"), "missing/c.csv: folder missing does not exist"),
        (("bench", "http://127.0.0.1:9", "-o", "a.json", "--csv", "/dev/full"), "/dev/full: exists and is not a"),
        (("watch", "http://127.0.0.1:9", "--log", "missing/w.jsonl"), "missing/w.jsonl: folder missing does not"),
        (("watch", "http://127.0.0.1:9", "-o", "/proc/w.json"), "/proc/w.json: cannot write in /proc"),
    ],
)
def test_bad_output_paths_before_any_work(capsys, tmp_path, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    code, err = run(capsys, *argv)
    assert code == 2 and len(err.strip().splitlines()) == 1 and message in err, err
    assert list(tmp_path.iterdir()) == []  # a.json was not written


def test_report_with_bad_plot_suffix_writes_nothing(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert run(capsys, "analyze", "-m", "llama-3.2-1b", "-o", "run.json")[0] == 0
    code, err = run(capsys, "report", "run.json", "-o", "r.html", "--plot", "p.jpg")
    assert code == 2 and "p.jpg: the file must end in .png or .svg, not .jpg" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.json"]
