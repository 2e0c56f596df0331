"""core/packaged.py: a shipped TOML file is read through its JSON image while that is current."""

from __future__ import annotations

import os
import sys
import tomllib
from pathlib import Path

import pytest

import rooftop
from rooftop.core.packaged import load_toml

SHIPPED = sorted(Path(rooftop.__file__).parent.rglob("*.toml"))


@pytest.fixture
def writes_bytecode(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)  # CI may set PYTHONDONTWRITEBYTECODE


def no_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(_text: str) -> None:
        raise AssertionError("parsed the TOML although its image is current")

    monkeypatch.setattr(tomllib, "loads", refuse)


def test_the_image_is_made_once_and_used_until_the_file_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, writes_bytecode: None
) -> None:
    path = tmp_path / "vocab.toml"
    path.write_text('version = 1\n[[class]]\nname = "gemm"\npatterns = ["gemm", "^Cijk_"]\nscale = 1.5\n')
    want = {"version": 1, "class": [{"name": "gemm", "patterns": ["gemm", "^Cijk_"], "scale": 1.5}]}
    assert load_toml(path) == want
    image = tmp_path / "__pycache__" / "vocab.toml.json"
    assert image.is_file()
    with monkeypatch.context() as m:
        no_parsing(m)
        assert load_toml(path) == want  # from the image: tomllib not called
        assert type(load_toml(path)["version"]) is int and type(load_toml(path)["class"][0]["scale"]) is float
    path.write_text("version = 2\n")  # another size: the image is stale
    assert load_toml(path) == {"version": 2}
    stat = path.stat()
    path.write_text("version = 3\n")  # the same size, another modification time
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    assert load_toml(path) == {"version": 3}
    image.write_bytes(b"{not json")  # a torn or foreign image: parsed again, and remade
    assert load_toml(path) == {"version": 3}
    with monkeypatch.context() as m:
        no_parsing(m)
        assert load_toml(path) == {"version": 3}


def test_no_image_where_json_cannot_hold_the_tables_or_writing_is_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, writes_bytecode: None
) -> None:
    odd = tmp_path / "odd.toml"
    odd.write_text("when = 2026-12-02\npeak = nan\n")  # a date and a nan have no JSON twin
    assert load_toml(odd)["when"].isoformat() == "2026-12-02"
    assert not (tmp_path / "__pycache__" / "odd.toml.json").exists()
    plain = tmp_path / "plain.toml"
    plain.write_text("a = 1\n")
    monkeypatch.setattr(sys, "dont_write_bytecode", True)  # PYTHONDONTWRITEBYTECODE: as for .pyc files
    assert load_toml(plain) == {"a": 1}
    assert not (tmp_path / "__pycache__" / "plain.toml.json").exists()


def test_a_folder_it_cannot_write_into_only_costs_the_parse(tmp_path: Path, writes_bytecode: None) -> None:
    # as in a read-only install; made here by a file where the __pycache__ folder would go (root may
    # write into read-only folders)
    path = tmp_path / "v.toml"
    path.write_text("a = 1\n")
    (tmp_path / "__pycache__").write_text("not a folder")
    assert load_toml(path) == {"a": 1} == load_toml(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["__pycache__", "v.toml"]  # no temporary file left


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_every_shipped_file_reads_the_same_through_its_image(
    path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, writes_bytecode: None
) -> None:
    copy = tmp_path / path.name
    copy.write_bytes(path.read_bytes())
    parsed = tomllib.loads(path.read_text(encoding="utf-8"))
    assert load_toml(copy) == parsed
    assert (tmp_path / "__pycache__" / f"{path.name}.json").is_file()  # each has a JSON twin
    no_parsing(monkeypatch)
    assert load_toml(copy) == parsed
