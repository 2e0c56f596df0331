from rooftop.core.totals import Totals


def make(**kw):
    base = {
        "phase": "decode",
        "time_s": 0.02,
        "tokens": 4.0,
        "flops": 100.0,
        "model_flops": 90.0,
        "bytes": 50.0,
        "weight_bytes": 30.0,
        "kv_read_bytes": 10.0,
        "kv_write_bytes": 1.0,
        "activation_bytes": 9.0,
        "link_bytes": 0.0,
        "mfu": 0.1,
        "hfu": 0.11,
        "mbu": 0.8,
        "bound": "memory:weights",
        "peak_flop_per_s": 1e3,
        "bandwidth_bytes_per_s": 1e2,
    }
    return Totals(**(base | kw))


def test_derived():
    t = make()
    assert t.kv_bytes == 11.0 and t.intensity == 2.0 and t.tokens_per_s == 200.0  # 4 tokens / 20 ms
    d = t.to_dict()
    assert d["tpot_s"] == 0.02 and "ttft_s" not in d
    assert make(phase="prefill").to_dict()["ttft_s"] == 0.02


def test_round_trip():
    t = make()
    assert Totals.from_dict(t.to_dict()) == t
