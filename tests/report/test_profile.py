"""Rendering a profile run: roofs line with spread and contention, side-by-side table, summary, escaping."""

from rich.console import Console

from rooftop.core.artifact import Result, Run
from rooftop.core.points import Phase, RooflinePoint, Source
from rooftop.core.roofs import ComputeRoof, MemoryRoof, RoofKind, Roofs
from rooftop.report.profile import profile_table, render_profile, roofs_panel_line, summary_table

ROOFS = Roofs(
    "cpu:AMD EPYC",
    (ComputeRoof("fp32", 100e9, RoofKind.MEASURED),),
    (MemoryRoof("hbm", 20e9, RoofKind.MEASURED),),
    identity={"spread": {"compute.fp32": 0.02, "memory.hbm": 0.05}, "mode": "quick", "other_processes_cpu_share": 0.25},
)
PROFILE = {"steps": 4, "step_time_s": 10e-3, "unprofiled_step_s": 9e-3, "cold_step_s": 12e-3, "gap_s": 2e-3,
           "gap_share": 0.2, "kv_append_s": 0.5e-3, "kv_append_bytes": 8e6, "accounted_share": 0.99,
           "unattributed_s": 0.1e-3, "matmul_flops_traced": 1.5e8, "flop_counter_ratio": 1.0, "interrupted": False}  # fmt: skip
WORKLOAD = {"model": "tiny", "phase": "decode", "batch": 1, "context": 512, "weight_dtype": "fp32",
            "kv_dtype": "fp32", "compute_dtype": "fp32", "tp": 1}  # fmt: skip


def point(label, time_s, source, flops=20e6, bytes_=40e6):
    return RooflinePoint(label, "gemm", Phase.DECODE, flops, bytes_, time_s, "fp32", source, bound="memory")


def result(profile=PROFILE, label="lm_head"):
    # measured lm_head 4 ms vs analytic 2 ms (40 MB / 20 GB/s): 2.00×; 40 % of the 10 ms step;
    # achieved 20 MFLOP / 4 ms = 5 GFLOP/s; attainable at intensity 0.5 (below the ridge 5) 0.5 × 20 GB/s = 10: 50 %
    points = (point(label, 4e-3, Source.MEASURED), point(label, 2e-3, Source.ANALYTIC))
    return Result(workload=WORKLOAD, points=points, extra={"profile": profile})


def text(renderable) -> str:
    console = Console(record=True, width=220)
    console.print(renderable)
    return console.export_text()


def test_roofs_line_names_spread_and_contention():
    assert roofs_panel_line(ROOFS) == (
        "roofs (measured, quick) cpu:AMD EPYC: fp32 100 GFLOP/s (±2.0%), DRAM 20 GB/s (±5.0%); "
        "other processes used 25% of the CPUs while measuring"
    )


def test_table_puts_measured_beside_analytic():
    row = text(profile_table(result(), ROOFS)).splitlines()[1].split()
    assert row == ["lm_head", "1", "4", "ms", "40.0%", "2", "ms", "2.00×", "20", "M", "40", "MB", "0.5", "0.5", "5",
                   "GFLOP/s", "50%", "memory"]  # fmt: skip


def test_summary_names_gaps_kv_copies_and_flop_check():
    out = text(summary_table(result()))
    assert "2 ms = 20.0% of the step" in out and "8 MB moved" in out
    assert "99.0% of the step" in out and "1.0000 × FlopCounterMode's" in out
    assert "interrupted" not in out
    assert "Ctrl-C" in text(summary_table(result({**PROFILE, "interrupted": True})))


def test_render_escapes_labels_and_names_the_trace():
    run = Run("profile", ROOFS, (result(label="[red]x[/]"),), identity={"trace": "t.json.gz"})
    console = Console(record=True, width=220)
    render_profile(run, console)
    out = console.export_text()
    assert "[red]x[/]" in out and "measured vs analytic" in out and "t.json.gz (open in https://ui.perfetto.dev)" in out
