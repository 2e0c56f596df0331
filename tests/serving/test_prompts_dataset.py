"""`bench --dataset` lines typed and bounded (issue 11): bad rows are one line naming file:line.

Before: "output_len": -5 was sent to the engine; "messages": "hello" was sent as a list of five
characters; a line nested 100,000 deep was a RecursionError.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rooftop.errors import WorkloadError
from rooftop.serving.loadgen.prompts import Lengths, dataset, parse_lengths


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"prompt": "hi", "output_len": -5}', "d.jsonl:2: output_len = -5: must be ≥ 1"),
        ('{"prompt": "hi", "output_len": 2.5}', "d.jsonl:2: output_len = 2.5: not an integer (got a number)"),
        ('{"prompt": "hi", "output_len": 1e30}', "d.jsonl:2: output_len = 1e+30: not an integer (got a number)"),
        ('{"messages": "hello"}', "d.jsonl:2: messages = 'hello': not a list"),
        (
            '{"messages": [{"role": "user", "content": 5}]}',
            "d.jsonl:2: messages[0].content = 5: not a string or a list",
        ),
        ('{"messages": []}', "d.jsonl:2: messages = []: must not be empty"),
        ('{"prompt": 5}', "d.jsonl:2: prompt = 5: not a string (got an integer)"),
        ('{"prompt": null}', "d.jsonl:2: expected an object with 'prompt' (text) or 'messages' (a list), not both"),
        ('{"prompt": "a", "messages": [{"role": "user", "content": "b"}]}', "d.jsonl:2: expected an object with"),
        ('["x"]', "d.jsonl:2: expected an object with"),
        ('{"prompt": ' + "[" * 100_000 + "]" * 100_000 + "}", "d.jsonl:2: nested deeper than 64 levels"),
    ],
)
def test_bad_rows(tmp_path: Path, line: str, message: str) -> None:
    p = tmp_path / "d.jsonl"
    p.write_text('{"prompt": "fine"}\n' + line + "\n")
    with pytest.raises(WorkloadError) as info:
        dataset(p, 2, Lengths(4))
    assert str(info.value).startswith(f"{tmp_path}/{message}"), str(info.value)


def test_good_rows_keep_their_budgets(tmp_path: Path) -> None:
    p = tmp_path / "d.jsonl"
    p.write_text('{"prompt": "hi", "output_len": 7}\n\n{"messages": [{"role": "user", "content": "yo"}]}\n')
    reqs = dataset(p, 3, Lengths(4))
    # rows reused in order: 7 from the row, 4 from --output-len, 7 again
    assert [r.output_len for r in reqs] == [7, 4, 7]
    assert reqs[1].prompt == [{"role": "user", "content": "yo"}]


def test_missing_file_and_length_bounds(tmp_path: Path) -> None:
    with pytest.raises(WorkloadError, match=r"nope.jsonl: cannot read: no such file$"):
        dataset(tmp_path / "nope.jsonl", 1, Lengths(4))
    with pytest.raises(WorkloadError, match=r"--prompt-len '99999999999': lengths must be at most 16,777,216"):
        parse_lengths("99999999999", "--prompt-len")
