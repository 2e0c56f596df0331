from rich.console import Console

from rooftop.api import analyze
from rooftop.core.points import Phase
from rooftop.core.workload import Workload
from rooftop.hardware.catalog import get_roofs
from rooftop.models.presets import load_preset
from rooftop.report.tables import render_run, roofs_line


def test_render_run_prints_ops_totals_findings():
    run = analyze(load_preset("llama-3.1-8b"), get_roofs("h100-sxm"), [Workload(phase=Phase.DECODE, batch=1)])
    console = Console(record=True, width=200)
    render_run(run, console)
    text = console.export_text()
    for needle in (
        "q_proj",
        "kv_append",
        "lm_head",
        "time per output token",
        "MFU / HFU / MBU",
        "Decode is weight-bandwidth bound",
        "side effects",
    ):
        assert needle in text


def test_roofs_line():
    assert roofs_line(get_roofs("h100-sxm"), "bf16") == (
        "h100-sxm: bf16 989 TFLOP/s (datasheet), HBM 3.35 TB/s (datasheet), ridge 295 FLOP/B"
    )


def test_markup_in_names_is_escaped():
    from msgspec.structs import replace

    spec = replace(load_preset("gpt2"), name="[bold red]evil[/]")
    run = analyze(spec, get_roofs("h100-sxm"), [Workload(phase=Phase.DECODE, context=512)])
    console = Console(record=True, width=200)
    render_run(run, console)
    assert "[bold red]evil[/]" in console.export_text()
