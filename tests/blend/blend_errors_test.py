#!/usr/bin/env python3
"""megatron_blend's checks before any sample is read: each bad input is one
error line naming the file or config key and the entry, exit 2, and nothing
at the output path. Usage: blend_errors_test.py   (env: MPIEXEC, DSANALYZE, SOURCE_DIR)
"""
import json
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.environ["SOURCE_DIR"], "tests", "support"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import blend_reference as ref  # noqa: E402
import cli_check  # noqa: E402
import score_reference  # noqa: E402

DSANALYZE = os.environ["DSANALYZE"]


def component(work, name, samples, rng, vocab=100):
    prefix = os.path.join(work, name)
    subprocess.run([DSANALYZE, "generate", prefix, "--documents", "30", "--vocab-size", str(vocab),
                    "--max-length", "20", "--seed", str(rng.randrange(1000))],
                   check=True, stdout=subprocess.DEVNULL)
    doc_idx, sample_idx, shuffle_idx, _, _ = ref.gpt_maps(
        score_reference.read_idx_sizes(prefix), 8, samples, rng)
    score_reference.write_npy(prefix + "_doc_idx.npy", "<i4", doc_idx)
    score_reference.write_npy(prefix + "_sample_idx.npy", "<i4",
                              [v for p in sample_idx for v in p], (len(sample_idx), 2))
    score_reference.write_npy(prefix + "_shuffle_idx.npy", "<i8", shuffle_idx)
    return {"prefix": prefix, "index_prefix": prefix}, len(shuffle_idx)


def write_config(work, name, dataset):
    out = os.path.join(work, name)
    with open(out + ".json", "w") as f:
        json.dump({"dataset": dataset, "metrics": [{"name": "seqlen", "metric": "seqlen"}],
                   "output": {"path": out}}, f)
    return out + ".json"


def refused(work, name, dataset, expected):
    out = os.path.join(work, name)
    path = write_config(work, name, dataset)
    proc = subprocess.run([os.environ["MPIEXEC"], "-n", "1", DSANALYZE, "--config", path,
                           "--quiet"], capture_output=True, text=True)
    problems = cli_check.error_line_problems(proc, expected)
    if os.path.exists(out):
        problems.append("%s exists" % out)
    if problems:
        raise AssertionError("%s: %s" % (name, "; ".join(problems)))


def main():
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as work:
        a, samples_a = component(work, "a", 50, rng)
        b, samples_b = component(work, "b", 30, rng)
        wide, _ = component(work, "wide", 30, rng, 70000)
        index = lambda name, descr, values: (  # noqa: E731
            score_reference.write_npy(os.path.join(work, name), descr, values)
            or os.path.join(work, name))
        good_which = index("which.npy", "|u1", [0, 1, 0, 1])
        good_sample = index("sample.npy", "<i8", [0, 0, 1, 1])
        blend = {"type": "megatron_blend", "datasets": [a, b],
                 "dataset_index": good_which, "dataset_sample_index": good_sample}

        short = index("short.npy", "<i8", [0, 0, 1])
        refused(work, "lengths", dict(blend, dataset_sample_index=short),
                ["dataset.dataset_sample_index: " + short, "has 3 entries", "has 4"])
        outside = index("outside.npy", "<i2", [0, 1, 2, 1])
        refused(work, "component", dict(blend, dataset_index=outside),
                ["dataset.dataset_index: " + outside, "dataset_index[2] = 2 is not a component"])
        past = index("past.npy", "<i8", [0, 0, samples_a, 1])
        refused(work, "sample", dict(blend, dataset_sample_index=past),
                ["dataset.dataset_sample_index: " + past,
                 "dataset_sample_index[2] = %d is not a sample of dataset.datasets[0]" % samples_a])
        negative = index("negative.npy", "<i8", [0, -1, 1, 1])
        refused(work, "negative_sample", dict(blend, dataset_sample_index=negative),
                ["dataset_sample_index[1] = -1 is not a sample of dataset.datasets[1]"])
        refused(work, "uint8", dict(blend, datasets=[a] * 256),
                ["dataset.dataset_index: " + good_which, "uint8", "256 entries"])
        refused(work, "dtype", dict(blend, datasets=[a, wide]),
                ["dataset.datasets[1].prefix", "int32", "uint16"])
        computed = {"type": "megatron_blend", "datasets": [a, b], "size": 40}
        refused(work, "negative_weight", dict(computed, weights=[1, -0.5]),
                ["config: dataset.weights[1]: -0.5 is negative"])
        refused(work, "zero_weights", dict(computed, weights=[0, 0]),
                ["config: dataset.weights: all weights are 0"])
        refused(work, "weight_count", dict(computed, weights=[1, 2, 3]),
                ["config: dataset.weights: 3 weights for 2 entries of dataset.datasets"])
        refused(work, "both", dict(blend, weights=[1, 1], size=4),
                ["config: dataset: give the blend index files", "not both"])
        neither = {"type": "megatron_blend", "datasets": [a, b]}
        refused(work, "neither", neither, ["config: dataset.dataset_index: required key"])
        refused(work, "one_file", dict(neither, dataset_index=good_which),
                ["config: dataset.dataset_sample_index: required key"])
        refused(work, "no_size", dict(neither, weights=[1, 1]),
                ["config: dataset: with \"weights\", give exactly one of \"size\""])
        refused(work, "too_many_draws", dict(computed, weights=[1, 1], size=2 * samples_b + 2),
                ["config: dataset.size: the blend of %d samples" % (2 * samples_b + 2),
                 "dataset.datasets[1]"])
        # Megatron-DeepSpeed's blend description beside its index lists the
        # components in order: swapped entries are refused, named both ways.
        dsc_index = index("5d2c_index.npy", "|u1", [0, 1, 0, 1])
        with open(os.path.join(work, "5d2c.dsc"), "w") as f:
            f.write("Blendable dataset\n\nDatasets:\nGPT Dataset\n\nData prefix %s\n"
                    "Dataset name train\n\nGPT Dataset\n\nData prefix /elsewhere/b\n"
                    "Dataset name train\n\nWeights: [0.5, 0.5]\nSize: 4\n" % a["prefix"])
        refused(work, "dsc_order", dict(blend, datasets=[b, a], dataset_index=dsc_index),
                ["dataset.datasets[0].prefix: \"%s\" is not the blend's component 0" % b["prefix"],
                 os.path.join(work, "5d2c.dsc"), a["prefix"] + ", /elsewhere/b"])
        refused(work, "dsc_count", dict(blend, datasets=[a, b, a], dataset_index=dsc_index),
                ["dataset.datasets: 3 entries", "lists 2 components"])
        ok = subprocess.run([DSANALYZE, "inspect", "--config",
                             write_config(work, "dsc_ok", dict(blend, dataset_index=dsc_index))],
                            capture_output=True, text=True)
        if ok.returncode != 0:
            raise AssertionError("dsc_ok: the blend in the .dsc's order is refused: %r" % ok.stderr)
        refused(work, "entry_key", dict(blend, datasets=[a, dict(b, prefixes=["x"])]),
                ["config: dataset.datasets[1]: unknown key \"prefixes\""])
    print("megatron_blend: every bad input refused")


if __name__ == "__main__":
    main()
