"""serving/profiler.py: which files are a session's traces, and waiting for them to be whole."""

from __future__ import annotations

import gzip
import threading
import time
from pathlib import Path

import pytest

from rooftop.errors import TelemetryError
from rooftop.serving.profiler import NOT_PROFILING, Call, is_trace, session_traces, wait_for_traces


def test_waits_for_whole_worker_traces_of_the_session(tmp_path: Path) -> None:
    whole = gzip.compress(b'{"traceEvents": []}')
    (tmp_path / "other_rank0.1.pt.trace.json.gz").write_bytes(whole)  # another session
    (tmp_path / "p_vm_1.async_llm.2.pt.trace.json.gz").write_bytes(whole)  # the API process: CPU only
    (tmp_path / "p_rank0.profiler_out.txt").write_text("table")
    cut = tmp_path / "p_rank0.3.pt.trace.json.gz"
    cut.write_bytes(whole[:-6])  # still being written: the gzip member is incomplete

    def finish() -> None:
        time.sleep(0.6)
        cut.write_bytes(whole)

    threading.Thread(target=finish, daemon=True).start()
    t0 = time.monotonic()
    assert wait_for_traces(tmp_path, "p", timeout_s=10, poll_s=0.1) == [cut]
    assert time.monotonic() - t0 >= 0.6  # it did wait for the file to be whole
    assert is_trace(cut) and not is_trace(tmp_path / "p_rank0.profiler_out.txt")


def test_sglang_rank_traces_of_the_session_not_the_merged_file(tmp_path: Path) -> None:
    # names as SGLang's scheduler writes them: {prefix}-{profile_id}-TP-{tp}[-DP-{dp}][-PP-{pp}][-EP-{ep}]
    ranks = ["p-1764680000.25-TP-0.trace.json.gz", "p-1764680000.25-TP-1-DP-1-EP-3.trace.json.gz"]
    others = [
        "merged-1764680000.25.trace.json.gz",  # merge_profiles: every rank again, in one file
        "1764680000.25-TP-0-memory.pickle",  # MEM activity
        "q-1764680000.9-TP-0.trace.json.gz",  # another session
        "p-notes.trace.json.gz",  # the prefix, but no rank
    ]
    for name in ranks + others:
        (tmp_path / name).write_bytes(b"")
    assert session_traces(tmp_path, "p") == [tmp_path / n for n in sorted(ranks)]


def test_an_older_sglang_without_the_prefix_is_told_by_its_profile_id(tmp_path: Path) -> None:
    # before profile_prefix, SGLang named files {profile_id}-TP-{tp}: profile_id is str(time.time())
    # when the server takes /start_profile, so within the call's send and answer (one host's clock)
    started = Call(sent_s=1764680000.20, returned_s=1764680000.31)
    ours = ["1764680000.25-TP-0.trace.json.gz", "1764680000.25-TP-1.trace.json.gz"]
    others = [
        "1764679000.5-TP-0.trace.json.gz",  # an earlier session in the same folder
        "1764680000.25-TP-0-memory.pickle",
        "merged-1764680000.25.trace.json.gz",
    ]
    for name in ours + others:
        (tmp_path / name).write_bytes(b"")
    assert session_traces(tmp_path, "p", started) == [tmp_path / n for n in ours]
    assert session_traces(tmp_path, "p") == []  # without the call, no name is this session's


def test_timeout_is_one_line_naming_the_folder(tmp_path: Path) -> None:
    with pytest.raises(TelemetryError, match=r"no complete trace p_\*\.pt\.trace\.json\[\.gz\] \(vLLM\) or "
                       r"p-\*-TP-\*\.trace\.json\[\.gz\] \(SGLang\) after 0\.3 s"):  # fmt: skip
        wait_for_traces(tmp_path, "p", timeout_s=0.3, poll_s=0.1)
    assert "--profiler-config" in NOT_PROFILING and "VLLM_TORCH_PROFILER_DIR" in NOT_PROFILING
