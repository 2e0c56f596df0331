from rich.console import Console

from rooftop.api.whatif import what_if
from rooftop.core.points import Phase
from rooftop.core.workload import Workload
from rooftop.hardware.catalog import get_roofs
from rooftop.models.presets import load_preset
from rooftop.report.tables import predicted_line
from rooftop.report.whatif import measured_table, what_if_table


def _text(renderable) -> str:
    console = Console(width=80, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def test_predicted_line_names_what_changes():
    line = predicted_line(
        {
            "ttft_s": [0.033, 0.033],
            "tpot_s": [0.00456, 0.00165],
            "tokens_per_s_per_gpu": [219.1, 605.9],
            "fits": [True, True],
        }
    )
    assert line == "TPOT 4.56 ms → 1.65 ms · tokens/s/GPU 219 → 606 · fits"  # TTFT unchanged: left out


def test_what_if_table_fits_80_columns():
    result = what_if(load_preset("llama-3.1-8b"), get_roofs("h100-sxm"), Workload(phase=Phase.DECODE, batch=1))
    text = _text(what_if_table(result.to_dict()))
    assert "ranked by tokens/s per GPU" in text and "baseline" in text and "+609%" in text  # 1,554 / 219
    assert max(len(line) for line in text.splitlines()) <= 80


def test_measured_table():
    rows = [
        {
            "remedy": "decode batch 1 → 8",
            "metric": "tokens/s",
            "predicted_speedup": 5.0,
            "measured_speedup": 4.0,
            "error": 0.25,
            "within_tolerance": False,
        }
    ]
    text = _text(measured_table(rows))
    assert "×5.00" in text and "×4.00" in text and "+25%" in text


def test_ridge_table_shows_the_crossing():
    from rooftop.analytic.speculative import ridge_table as rows_of
    from rooftop.report.whatif import ridge_table

    rows = rows_of(load_preset("llama-3.1-8b"), Workload(phase=Phase.DECODE, batch=32), get_roofs("h100-sxm"))
    text = _text(ridge_table(rows))
    lines = [line.split() for line in text.splitlines()[2:] if line.strip()]
    assert [int(cells[0]) for cells in lines] == [1, 2, 4, 8, 16]
    # batch 32 × (k + 1) tokens: the GEMMs cross the ridge (295 FLOP/B) between k + 1 = 8 and 16
    assert lines[3][-1] == "memory:weights" and lines[4][-1] == "compute"
