"""summary.json's per-component statistics, worked out independently: a run's
own sample_to_metric values grouped by the blend's dataset_index, and the
statistics of each group as docs/format.md defines them (nearest-rank
percentiles p0, p5, ..., p100; mean = sum / samples; std and skew as the
population's moments, IQR = p75 - p25)."""
import json
import math
import os
import struct

# Megatron table codes of the metric files (docs/format.md §1).
CODES = {1: "B", 2: "b", 3: "h", 4: "i", 5: "q", 6: "H", 7: "I", 8: "Q"}


def sample_to_metric(out, metric):
    """The values of OUT/metric/metric_sample_to_metric (one element per row)."""
    prefix = os.path.join(out, metric, metric + "_sample_to_metric")
    with open(prefix + ".idx", "rb") as f:
        fmt = CODES[f.read()[17]]
    with open(prefix + ".bin", "rb") as f:
        data = f.read()
    return list(struct.unpack("<%d%s" % (len(data) // struct.calcsize(fmt), fmt), data))


def statistics(values):
    values = sorted(values)
    n = len(values)
    if n == 0:
        return {"samples": 0, "distinct_values": 0}
    rank = lambda p: values[max(1, math.ceil(p * n / 100)) - 1]  # noqa: E731
    mean = sum(values) / n
    m2 = sum((v - mean) ** 2 for v in values) / n
    m3 = sum((v - mean) ** 3 for v in values) / n
    return {"samples": n, "distinct_values": len(set(values)), "min": values[0],
            "max": values[-1], "sum": sum(values), "mean": mean,
            "percentiles": {"p%d" % p: rank(p) for p in range(0, 101, 5)},
            "std": math.sqrt(m2), "iqr": rank(75) - rank(25), "skew": m3 / m2 ** 1.5 if m2 else 0}


def close(a, b):
    return (a is None) == (b is None) and (a is None or abs(a - b) <= 1e-9 * max(1, abs(b)))


def check(out, metrics, which, prefixes, what):
    """Each metric's per_component in OUT/summary.json against the groups of
    its sample_to_metric by `which` (the blend's dataset_index)."""
    summary = json.load(open(os.path.join(out, "summary.json")))["metrics"]
    for metric in metrics:
        values = sample_to_metric(out, metric)
        got = summary[metric].get("per_component")
        if got is None or [c["prefix"] for c in got] != prefixes:
            raise AssertionError("%s: %s: per_component %r" % (what, metric, got))
        for k, c in enumerate(got):
            want = statistics([v for v, w in zip(values, which) if w == k])
            c.pop("prefix")
            # The moments are floating point: equal to a relative 1e-9.
            moments = [(key, c.pop(key, None), want.pop(key, None))
                       for key in ("mean", "std", "skew")]
            if c != want or not all(close(g, w) for _, g, w in moments):
                raise AssertionError("%s: %s component %d: %r, expected %r (moments %r)"
                                     % (what, metric, k, c, want, moments))
