import json

from rooftop.api import analyze
from rooftop.cli.output import emit
from rooftop.core.points import Phase
from rooftop.core.workload import Workload
from rooftop.hardware.catalog import get_roofs
from rooftop.models.presets import load_preset


def run():
    return analyze(load_preset("gpt2"), get_roofs("a100-80gb-sxm"), [Workload(phase=Phase.DECODE, context=100)])


def test_emit_json(capsys):
    emit(run(), as_json=True)
    assert json.loads(capsys.readouterr().out)["schema"] == "rooftop.run/1"


def test_emit_file_keeps_the_tables(tmp_path, capsys):
    out = tmp_path / "r.json"
    emit(run(), output=str(out))
    captured = capsys.readouterr()
    # issue 10: -o used to hide the tables; files never hide the terminal output now (--quiet does)
    assert "time per output token" in captured.out and "wrote" in captured.err
    assert json.loads(out.read_text())["results"][0]["workload"]["model"] == "gpt2"
