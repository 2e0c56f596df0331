"""Atomic writes: a failure leaves the old file (or none), never a partial or empty one."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from rooftop.core.atomic import atomic_path, check_target, write_atomic
from rooftop.errors import ReportError


def test_write_replaces_whole_and_leaves_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "a.json"
    target.write_text("old")
    write_atomic(target, "new ✓", ReportError)
    assert target.read_text(encoding="utf-8") == "new ✓"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json"]
    assert target.stat().st_mode & 0o777 == 0o666 & ~_umask()  # not mkstemp's 0600


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def test_disk_full_mid_write_keeps_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the issue: on a full disk -o left a truncated JSON and --report/--plot 0-byte files
    target = tmp_path / "a.json"
    target.write_text('{"old": true}')

    def full(self: Path, data: bytes) -> int:
        with open(self, "wb") as fh:
            fh.write(data[:3])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Path, "write_bytes", full)
    with pytest.raises(ReportError, match=r"a.json: cannot write: No space left on device$"):
        write_atomic(target, '{"new": true}', ReportError)
    assert target.read_text() == '{"old": true}'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json"]


def test_exception_inside_leaves_no_file(tmp_path: Path) -> None:
    target = tmp_path / "p.png"
    with pytest.raises(RuntimeError), atomic_path(target, ReportError) as tmp:
        tmp.write_bytes(b"half")
        raise RuntimeError("renderer failed")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("path", "suffixes", "message"),
    [
        ("{tmp}/missing/a.json", (), "{tmp}/missing/a.json: folder {tmp}/missing does not exist"),
        ("/dev/full", (), "/dev/full: exists and is not a regular file; give a file path"),
        ("/proc/a.json", (), "/proc/a.json: cannot write in /proc: "),
        ("{tmp}", (), "{tmp}: exists and is not a regular file; give a file path"),
        ("{tmp}/p.bmpx", (".png", ".svg"), "{tmp}/p.bmpx: the file must end in .png or .svg, not .bmpx"),
    ],
)
def test_check_target_refuses(tmp_path: Path, path: str, suffixes: tuple[str, ...], message: str) -> None:
    with pytest.raises(ReportError) as info:
        check_target(path.format(tmp=tmp_path), ReportError, suffixes)
    assert str(info.value).startswith(message.format(tmp=tmp_path))
    assert list(tmp_path.iterdir()) == []  # the probe file is gone


def test_a_name_too_long_for_the_file_system_is_one_line(tmp_path):
    # found by the fuzz campaign: Path.exists() raised ENAMETOOLONG instead of the typed error
    from rooftop.errors import ReportError

    with pytest.raises(ReportError, match="cannot be a file here"):
        check_target(tmp_path / ("a" * 300 + ".html"), ReportError)
