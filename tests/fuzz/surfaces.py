"""The fuzz campaign's surfaces: Hypothesis strategies that turn real files into hostile CLI runs.

Each surface is a strategy of :class:`Case`: the files to write (mutations of the real files in
tests/data/, the shipped presets and catalog), the CLI arguments (``{dir}`` is the case's folder,
``{url}`` the hostile server's address) and, for the server surfaces, the route the server plays.
"""

from __future__ import annotations

import copy
import csv
import gzip
import importlib
import io
import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from tests.fuzz import servers
from tests.fuzz.servers import Route, Script

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"
PRESETS = REPO / "src" / "rooftop" / "models" / "presets"
CATALOG_CSV = REPO / "src" / "rooftop" / "hardware" / "data" / "accelerators.csv"
_BIG_FLOAT, _BIG_INT, _DEEP = "__BIG_FLOAT__", "__BIG_INT__", "__DEEP__"


@dataclass
class Case:
    """One hostile run: files to write, arguments, and the server's route (or None)."""

    surface: str
    args: list[str]
    files: dict[str, bytes] = field(default_factory=dict)
    route: Route | None = None
    timeout_s: float = 20.0
    outputs: tuple[str, ...] = ()  # paths (with {dir}) that must not exist after a failed run


# -- hostile values ---------------------------------------------------------------------------------
HOSTILE_JSON: list[Any] = [0, -1, -0.0, 0.5, 1e308, 1e12, 2**63, 2**64, -(2**63) - 1, float("nan"), float("inf"),
                           float("-inf"), _BIG_FLOAT, _BIG_INT, _DEEP, "abc", "", "1536", "NaN", None, True, False,
                           [], {}, [1, "x"], {"a": 1}, [[1]], "x" * 70000]  # fmt: skip
HOSTILE_TEXT = ["0", "-1", "-0", "nan", "NaN", "inf", "-inf", "+Inf", "1e400", "-1e30", "1e12", "9223372036854775808",
                "9" * 400, "abc", "", "n/a", "0.5", "1,234", '"', "x" * 200_000, "\x00", "é", "3 TB/s", "1e-9"]  # fmt: skip


def _render_json(doc: Any) -> bytes:
    text = json.dumps(doc)
    text = text.replace(f'"{_BIG_FLOAT}"', "1e400").replace(f'"{_BIG_INT}"', "9" * 400)
    return text.replace(f'"{_DEEP}"', "[" * 3000 + "]" * 3000).encode()


def _nodes(doc: Any, limit: int = 4000) -> list[tuple[Any, Any]]:
    """(container, key) of every value in ``doc`` (breadth first, at most ``limit``)."""
    out: list[tuple[Any, Any]] = []
    queue = [doc]
    while queue and len(out) < limit:
        node = queue.pop(0)
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, value in items:
            out.append((node, key))
            if isinstance(value, dict | list):
                queue.append(value)
    return out


@st.composite
def json_mutation(draw: Any, doc: Any, focus: str = "") -> Any:
    """``doc`` (a deep copy) with one to three values replaced, removed, duplicated or wrapped."""
    doc = copy.deepcopy(doc)
    for _ in range(draw(st.integers(1, 3))):
        nodes = _nodes(doc)
        if focus:
            nodes = [n for n in nodes if isinstance(n[1], str) and focus in n[1]] or nodes
        if not nodes:
            break
        parent, key = nodes[draw(st.integers(0, len(nodes) - 1))]
        action = draw(st.sampled_from(["replace", "replace", "replace", "delete", "wrap", "copy"]))
        if action == "replace":
            parent[key] = copy.deepcopy(draw(st.sampled_from(HOSTILE_JSON)))  # never share the pool's lists
        elif action == "delete":
            if isinstance(parent, dict):
                del parent[key]
            else:
                parent.pop(key)
        elif action == "wrap":
            parent[key] = [parent[key]]
        elif isinstance(parent, list):
            parent.append(copy.deepcopy(parent[key]))
        else:
            parent[key] = str(parent[key])
    return doc


@st.composite
def byte_mutation(draw: Any, data: bytes) -> bytes:
    """``data`` truncated, with bytes flipped, a hostile chunk inserted or a line duplicated/removed."""
    action = draw(st.sampled_from(["truncate", "flip", "insert", "dup_line", "drop_line"]))
    at = draw(st.integers(0, max(0, len(data) - 1)))
    if action == "truncate":
        return data[:at]
    if action == "flip":
        return data[:at] + bytes([data[at] ^ draw(st.integers(1, 255))]) + data[at + 1 :] if data else data
    if action == "insert":
        return data[:at] + draw(st.sampled_from(HOSTILE_TEXT)).encode() + data[at:]
    lines = data.split(b"\n")
    i = at % max(1, len(lines))
    if action == "dup_line":
        return b"\n".join([*lines[: i + 1], *lines[i:]])
    return b"\n".join(lines[:i] + lines[i + 1 :])


@st.composite
def csv_mutation(draw: Any, text: str, start: int = 0) -> bytes:
    """One to three cells of a CSV (from line ``start``) replaced by hostile text."""
    rows = list(csv.reader(io.StringIO(text)))
    for _ in range(draw(st.integers(1, 3))):
        r = draw(st.integers(min(start, len(rows) - 1), len(rows) - 1))
        if rows[r]:
            rows[r][draw(st.integers(0, len(rows[r]) - 1))] = draw(st.sampled_from(HOSTILE_TEXT))
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue().encode()


# -- seeds --------------------------------------------------------------------------------------------
@cache
def _trace_doc(name: str) -> Any:
    with gzip.open(DATA / "hta-traces" / name) as f:
        return json.load(f)


@cache
def _preset(name: str) -> Any:
    if name in REAL_CONFIGS:  # a real config.json of tests/data/configs
        return json.loads((REAL_CONFIGS[name] / "config.json").read_text())
    if name in INLINE_CONFIGS:  # a published shape written in a test module (its licence unknown)
        module, attr = INLINE_CONFIGS[name]
        return copy.deepcopy(getattr(importlib.import_module(module), attr))
    return json.loads((PRESETS / f"{name}.json").read_text())


# The families whose layouts read more than the common fields: their own layer lists, nested
# sections, short convolutions, zero experts, per-kind head counts.
REAL_CONFIGS = {
    name: Path(__file__).resolve().parents[1] / "data" / "configs" / name for name in ("laguna", "mpt", "opt")
}
INLINE_CONFIGS = {
    "lfm2": ("tests.models.test_lfm2", "LFM2_5_1_2B"),
    "lfm2-moe": ("tests.models.test_lfm2", "LFM2_8B_A1B"),
    "dbrx": ("tests.models.test_families_2026", "DBRX"),
    "minimax-m1": ("tests.models.test_families_2026", "MINIMAX_M1"),
    "longcat-flash": ("tests.models.test_families_2026", "LONGCAT_FLASH"),
}


@cache
def _catalog_rows() -> list[dict[str, str]]:
    with CATALOG_CSV.open(newline="") as f:
        return [row for row in csv.DictReader(f)][:4]


def _toml(devices: list[dict[str, Any]]) -> bytes:
    def value(v: Any) -> str:
        if isinstance(v, str):
            return json.dumps(v)
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, float):
            return "nan" if v != v else ("inf" if v == float("inf") else "-inf" if v == float("-inf") else repr(v))
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        if isinstance(v, dict):
            return "{" + ", ".join(f"{json.dumps(k)} = {value(x)}" for k, x in v.items()) + "}"
        if v is None:
            return '""'
        return str(v)

    blocks = ["[[device]]\n" + "".join(f"{k} = {value(v)}\n" for k, v in d.items()) for d in devices]
    return "\n".join(blocks).replace(f'"{_BIG_FLOAT}"', "1e400").replace(f'"{_DEEP}"', "[" * 3000 + "]" * 3000).encode()


def _catalog_devices() -> list[dict[str, Any]]:
    numeric = ("memory_gib", "hbm_bandwidth_tb_s", "bf16_tflops", "fp16_tflops", "fp8_tflops", "fp32_tflops")
    out = []
    for row in _catalog_rows():
        device: dict[str, Any] = {"id": f"fuzz-{row['id']}", "name": row["name"]}
        for key in numeric:
            if row.get(key):
                device[key] = float(row[key])
        out.append(device)
    return out


# -- surfaces -----------------------------------------------------------------------------------------
@st.composite
def config_case(draw: Any) -> Case:
    presets = ["gpt2", "llama-3.2-1b", "deepseek-v3", "gemma-2-9b", "llama-3.1-8b"]
    name = draw(st.sampled_from([*presets, *REAL_CONFIGS, *INLINE_CONFIGS]))
    doc = draw(json_mutation(_preset(name)))
    phase = draw(st.sampled_from(["decode", "prefill"]))
    args = ["analyze", "--model", "{dir}/config.json", "--phase", phase, "-b", "1,8", "-c", "128", "-p", "128"]
    return Case("config", [*args, "--json"], {"config.json": _render_json(doc)})


FLAG_VALUES = ["0", "-1", "nan", "inf", "1e400", "9223372036854775808", "1e12", "abc", "", "1,8,64", "1-1000000",
               "0.5", "3 TB/s", "0 TB/s", "-3 TB/s", "1e-30", "1", "64", "100000", "1.5", "2048", "x=1:1"]  # fmt: skip
FLAGS = {
    "analyze": ["--batch", "--prompt", "--context", "--tp", "--bandwidth", "--peak-tflops", "--memory-utilization",
                "--quant-group", "--cached-prefix", "--hardware", "--model"],
    "sweep": ["--batch", "--context", "--prompt", "--output-tokens", "--tp", "--slo-ttft", "--slo-tpot",
              "--shared-prefix", "--memory-utilization", "--cohort", "--bandwidth", "--peak-tflops"],
}  # fmt: skip
DEFAULTS = {"analyze": ["--model", "gpt2", "--phase", "decode", "-b", "1", "-c", "128"],
            "sweep": ["--model", "gpt2", "-b", "1,8", "-c", "128,256"]}  # fmt: skip


@st.composite
def flags_case(draw: Any) -> Case:
    command = draw(st.sampled_from(sorted(FLAGS)))
    chosen = draw(st.lists(st.sampled_from(FLAGS[command]), min_size=1, max_size=3, unique=True))
    args = [command, *DEFAULTS[command]]
    for flag in chosen:
        args += [flag, draw(st.sampled_from(FLAG_VALUES))]
    return Case("flags", [*args, "--json"])


@st.composite
def catalog_case(draw: Any) -> Case:
    devices = draw(json_mutation(_catalog_devices()))
    ids = [d.get("id") for d in devices if isinstance(d, dict) and isinstance(d.get("id"), str)] or ["fuzz-h100-sxm"]
    text = _toml([d for d in devices if isinstance(d, dict)]) if draw(st.integers(0, 9)) else b"[[device]\nid="
    if draw(st.booleans()):
        text = draw(byte_mutation(text))
    device = draw(st.sampled_from(ids))
    args = ["analyze", "-H", device, "--catalog", "{dir}/hw.toml", "--model", "gpt2", "--phase", "decode", "-b", "1"]
    return Case("catalog", [*args, "-c", "128", "--json"], {"hw.toml": text})


@st.composite
def trace_case(draw: Any) -> Case:
    name = draw(st.sampled_from(["triton_example.json.gz", "mi250_minitoy_rocm.json.gz", "alexnet_a100.json.gz"]))
    doc = draw(json_mutation(_trace_doc(name), focus=draw(st.sampled_from(["", "dur", "ts", "Input", "name"]))))
    data = _render_json(doc)
    if draw(st.integers(0, 4)) == 0:
        data = draw(byte_mutation(data))
    gz = draw(st.booleans())
    file = "t.json.gz" if gz else "t.json"
    return Case("trace", ["import", f"{{dir}}/{file}", "--json"], {file: gzip.compress(data, 1) if gz else data})


CSV_SEEDS = [("ncu-csv-llm-perf-opt", "kernel_0001.ncu.metrics.csv"), ("ncu-csv-olajide-gpu-roofline-profiler",
             "saxpy.csv"), ("nsys-csv-llm-perf-opt", "decode_cuda_gpu_kern_sum.csv"),
             ("ncu-csv-llm-perf-opt", "kernel_0005.ncu.section_SpeedOfLight_RooflineChart.csv"),
             ("", "cuda_gpu_trace.csv")]  # fmt: skip


@cache
def _text(folder: str, name: str) -> str:
    if not folder:  # the nsys GPU trace's real rows live in its test (their licence is unknown: not a file)
        from tests.ingest.test_nsys_trace import HEADER, ROWS

        return "\n".join([HEADER, *ROWS]) + "\n"
    return (DATA / folder / name).read_text(encoding="utf-8-sig")


@st.composite
def csv_case(draw: Any) -> Case:
    folder, name = draw(st.sampled_from(CSV_SEEDS))
    text = _text(folder, name)
    data = draw(csv_mutation(text, 1)) if draw(st.integers(0, 3)) else draw(byte_mutation(text.encode()))
    hardware = ["-H", "h100-sxm"] if draw(st.booleans()) else []
    return Case("csv", ["import", "{dir}/" + name, *hardware, "--json"], {name: data})


PROM_SEEDS = ["vllm_cpu_0.32_live.prom", "sglang_production_metrics_docs.prom", "llamacpp_server_live_cpu.prom",
              "triton_trtllm_backend_readme.prom"]  # fmt: skip
PROM_VALUES = ["+Inf", "-Inf", "NaN", "-1e30", "1e400", "abc", "-1", "0", "1e308", "", "1 2", "0x10"]


@st.composite
def prom_text(draw: Any) -> bytes:
    """A real exposition with values, lines and TYPE comments mutated."""
    lines = _text("serving", draw(st.sampled_from(PROM_SEEDS))).splitlines()
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(lines) - 1))
        action = draw(st.sampled_from(["value", "value", "dup", "drop", "cut", "label"]))
        line = lines[i]
        if action == "value" and not line.startswith("#") and " " in line:
            lines[i] = line.rsplit(" ", 1)[0] + " " + draw(st.sampled_from(PROM_VALUES))
        elif action == "dup":
            lines.insert(i, line)
        elif action == "drop":
            del lines[i]
        elif action == "cut":
            lines[i] = line[: draw(st.integers(0, len(line)))]
        elif action == "label" and "{" in line:
            lines[i] = line.replace("{", '{le="x",', 1)
    return ("\n".join(lines) + "\n").encode()


@cache
def _log_record() -> Any:
    """One real observation line of a watch --log (the vLLM fixture, observed)."""
    from rooftop.serving.sources import read_file
    from rooftop.serving.watch import observe

    return observe(read_file(DATA / "serving" / "vllm_cpu_0.32_live.prom"), "{dir}/m.prom").to_json()


@st.composite
def metrics_case(draw: Any) -> Case:
    data = draw(prom_text())
    if draw(st.integers(0, 4)) == 0:
        data = draw(byte_mutation(data))
    files = {"m.prom": data}
    args = ["watch", "{dir}/m.prom", "--once", "--json"]
    if draw(st.integers(0, 3)) == 0:  # resume from a log with hostile lines
        record = json.loads(json.dumps(_log_record()).replace("{dir}", "__DIR__"))
        lines = [_render_json(draw(json_mutation(record))) for _ in range(draw(st.integers(1, 3)))]
        files["w.jsonl"] = b"\n".join(lines).replace(b"__DIR__", b"{dir}") + b"\n"
        args += ["--log", "{dir}/w.jsonl"]
    return Case("metrics", args, files)


PROM_API_SHAPES: list[Any] = [[], {"resultType": "vector", "result": {"a": 1}}, {"resultType": "matrix", "result": []},
                              {"resultType": "vector", "result": [{"metric": {"__name__": "vllm:x"}, "value": 5}]},
                              {"resultType": "vector", "result": [{"metric": {}, "value": [1, "abc"]}]},
                              {"resultType": "vector", "result": [{"metric": {"__name__": "vllm:num_requests_running"},
                                                                   "value": [1e300, "-1"]}]}, None, 5, "x"]  # fmt: skip


@st.composite
def watch_route(draw: Any) -> tuple[Route, list[str]]:
    """A misbehaving /metrics endpoint or Prometheus API, and extra watch arguments."""
    body = draw(prom_text())
    kind = draw(st.sampled_from(["ok", "ok", "status", "trickle", "gzip", "bomb", "hang", "close", "encoding",
                                 "prometheus", "garbage"]))  # fmt: skip
    status = draw(st.sampled_from([204, 301, 404, 500, 503]))
    shape = draw(st.sampled_from(PROM_API_SHAPES))
    scripts: dict[str, Any] = {
        "ok": lambda: servers.response(body),
        "status": lambda: servers.response(body, status=status),
        "trickle": lambda: servers.trickle(body[:40], 0.1),
        "gzip": lambda: servers.gzipped(body.decode("utf-8", "replace")),
        "bomb": lambda: servers.gzip_bomb(96 << 20),
        "hang": lambda: [(0.8, b"")],  # past the 0.5 s --timeout
        "close": lambda: [(0.0, b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nabc")],
        "encoding": lambda: servers.response(body, headers={"content-encoding": "br"}),
        "prometheus": lambda: servers.response(json.dumps({"status": "success", "data": shape})),
        "garbage": lambda: [(0.0, b"\x00\xff garbage\r\n\r\n")],
    }
    extra = ["--prometheus", "{url}"] if kind == "prometheus" else ["{url}"]
    if kind == "prometheus" and draw(st.booleans()):
        extra += ["--since", "60"]
    return (lambda m, p, b: scripts[kind]()), extra


@st.composite
def watch_case(draw: Any) -> Case:
    route, extra = draw(watch_route())
    polls = ["--once"] if draw(st.integers(0, 3)) else ["--count", "2", "--interval", "0.2"]
    return Case("watch", ["watch", *extra, *polls, "--json", "--timeout", "0.5"], route=route, timeout_s=15)


CHUNKS: list[Any] = [{"choices": [{"text": "t"}]}, {"choices": [{"text": "t"}]}, {"choices": [{"delta": {"content": "t"}}]},
                     {"choices": [{"text": "", "finish_reason": "length"}]}, {"choices": [], "usage": 5},
                     {"choices": [], "usage": {"completion_tokens": "3"}}, {"choices": 5}, {"choices": [{"delta": "x"}]},
                     {"choices": [], "usage": {"prompt_tokens": 4, "completion_tokens": -50}},
                     {"choices": [], "usage": {"prompt_tokens": 4, "completion_tokens": 4}}, {"error": "boom"}, "{not json",
                     "[DONE]", 5, [], {"choices": [None]}, {"choices": [{"text": 5}]},
                     {"choices": [], "usage": {"completion_tokens": 1e400}}]  # fmt: skip


@st.composite
def bench_script(draw: Any) -> Any:
    kind = draw(st.sampled_from(["stream"] * 6 + ["status", "long", "cut", "hang"]))
    chunks = draw(st.lists(st.sampled_from(CHUNKS), max_size=6))
    done = draw(st.booleans())
    if kind == "status":
        return lambda: servers.response("overloaded", status=503)
    if kind == "long":
        return lambda: servers.long_line(8 << 20)
    if kind == "hang":
        return lambda: [(0.0, servers.streaming_head()), (1.2, b"")]  # past the 0.6 s --timeout
    if kind == "cut":
        return lambda: [(0.0, servers.streaming_head()), (0.0, b'data: {"choices": [{"te')]
    return lambda: servers.sse(chunks, done)


@st.composite
def bench_case(draw: Any) -> Case:
    scripts = draw(st.lists(bench_script(), min_size=1, max_size=3))

    def chunks_for(n: int, request: dict[str, Any]) -> Script:
        return scripts[n % len(scripts)]()  # type: ignore[no-any-return]

    served = ["--served-model", "fuzz"] if draw(st.integers(0, 3)) else []
    flags = draw(
        st.sampled_from([[], ["--rate", "50"], ["--max-concurrency", "1"], ["--chat"], ["--rates", "inf,100"]])
    )
    args = ["bench", "{url}", *served, "--requests", "3", "--rate", "inf", "--prompt-len", "4", "--output-len", "4"]
    args += [*flags, "--no-scrape", "--json", "--timeout", "0.6"]
    return Case("bench", args, route=servers.completions(chunks_for), timeout_s=30)


@cache
def seed_artifact() -> Any:
    """A real rooftop.run/1 artifact (gpt2 decode), made once by the CLI itself."""
    from tests.fuzz.harness import invoke

    outcome = invoke(["analyze", "--model", "gpt2", "--phase", "decode", "-b", "1,8", "-c", "128", "--json"])
    return json.loads(outcome.out)


@st.composite
def artifact_case(draw: Any) -> Case:
    doc = draw(json_mutation(seed_artifact()))
    other = draw(st.sampled_from(["same", "mutated"]))
    files = {"a.json": _render_json(doc), "b.json": _render_json(seed_artifact() if other == "same" else doc)}
    if draw(st.booleans()):
        args = ["compare", "{dir}/a.json", "{dir}/b.json", "--json", "--force"]
    else:
        args = ["report", "{dir}/a.json", "-o", "{dir}/r.html"]
    return Case("artifacts", args, files, outputs=("{dir}/r.html",))


OUTPUT_PATHS = ["{dir}/missing/x.{ext}", "/dev/full", "/proc/rooftop-fuzz.{ext}", "{dir}", "{dir}/file/x.{ext}",
                "{dir}/" + "a" * 300 + ".{ext}", "{dir}/x.bmpx", "{dir}/ok.{ext}", "", "{dir}/x.{ext}.tmp",
                "{dir}/sub/../ok2.{ext}", "{dir}/{name}.{ext}", "{dir}/{name}/x.{ext}", "{dir}/{name}"]  # fmt: skip
# file names as users and scripts make them: spaces, quotes, $, unicode, newlines (never / or NUL)
NAMES = st.text(st.characters(blacklist_characters="/\x00", blacklist_categories=("Cs",)), min_size=1, max_size=30)


@st.composite
def output_case(draw: Any) -> Case:
    command = draw(st.sampled_from(["analyze", "sweep"]))
    flags = {"-o": "json", "--report": "html", "--plot": "png", "--csv": "csv"}
    usable = [f for f in flags if command == "sweep" or f != "--csv"]
    chosen = draw(st.lists(st.sampled_from(usable), min_size=1, max_size=2, unique=True))
    args = [command, *DEFAULTS[command]]
    outputs = []
    for flag in chosen:
        path = draw(st.sampled_from(OUTPUT_PATHS)).replace("{ext}", flags[flag])
        if "{name}" in path:
            path = path.replace("{name}", draw(NAMES).replace("{", "(").replace("}", ")"))
        if flag == "--plot" and draw(st.integers(0, 3)):
            path = path.replace(".png", ".svg")
        args += [flag, path]
        if path.startswith("{dir}/") and "/../" not in path and path != "{dir}":
            outputs.append(path)
    return Case("output", args, {"file": b"a file, not a folder"}, outputs=tuple(outputs))


SURFACES: dict[str, Any] = {
    "config": config_case(),
    "flags": flags_case(),
    "catalog": catalog_case(),
    "trace": trace_case(),
    "csv": csv_case(),
    "metrics": metrics_case(),
    "watch": watch_case(),
    "bench": bench_case(),
    "artifacts": artifact_case(),
    "output": output_case(),
}
