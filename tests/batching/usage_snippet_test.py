#!/usr/bin/env python3
"""docs/usage.md §15's Python snippet, run (ctest batching.usage_snippet.np1).

The snippet loads a `dsanalyze batches` plan and hands it to DeepSpeed's
dataloader_for_variable_batch_size and lr_scheduler_for_variable_batch_size
in place of batch_by_seqlens. It runs here as written, up to what needs torch:
numpy's load and those two functions are stand-ins that record what they are
given, and what DeepSpeed is given must be the three results batch_by_seqlens
returns (tests/batching/batch_reference.py) and the effective batch size.

Environment: NP, MPIEXEC, DSANALYZE, SOURCE_DIR.
"""
import os
import re
import subprocess
import sys
import tempfile
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import batch_reference as ref  # noqa: E402

sys.path.insert(0, os.path.join(os.environ["SOURCE_DIR"], "tests", "support"))
import cli_check  # noqa: E402

DSANALYZE = os.environ["DSANALYZE"]
MODULE = "deepspeed.runtime.data_pipeline.data_sampling.variable_batch_size_and_lr"


def fail(message):
    sys.exit("FAIL: " + message)


def snippet():
    text = open(os.path.join(os.environ["SOURCE_DIR"], "docs", "usage.md")).read()
    section = text[text.index("## 15. Variable batch size"):]
    section = section[:section.index("\n## ")]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    if len(blocks) != 1:
        fail("usage.md §15 has %d python blocks, expected 1" % len(blocks))
    return blocks[0]


class Array(list):
    """What the snippet uses of a 1-D numpy array: len, indexing, slicing, tolist."""

    def __getitem__(self, key):
        got = list.__getitem__(self, key)
        return Array(got) if isinstance(key, slice) else got

    def tolist(self):
        return list(self)


def stand_ins(calls):
    """numpy and DeepSpeed's module, recording the calls into `calls`."""
    numpy = types.ModuleType("numpy")
    numpy.load = lambda path: Array(ref.read_npy(path))
    ds = types.ModuleType(MODULE)

    # DeepSpeed's signatures, so that a keyword it does not take fails here too.
    def dataloader(dataset, microbatch_ids, batch_max_seqlens, dataloader_rank=0,
                   dataloader_batch_size=1, dataloader_num_replicas=1,
                   dataloader_collate_fn=None, dataloader_num_workers=2,
                   dataloader_pin_memory=False, required_microbatches_of_same_seqlen=False,
                   sample_padding_fn=None):
        calls["dataloader"] = (microbatch_ids, batch_max_seqlens)
        return "dataloader", {}

    def scheduler(base_batch_size, batch_sizes, dataloader, lr_scheduler_or_optimizer,
                  lr_scaling_method="linear", verbose=False):
        calls["scheduler"] = (base_batch_size, batch_sizes, dataloader, lr_scaling_method)
        return "scheduler"

    ds.dataloader_for_variable_batch_size = dataloader
    ds.lr_scheduler_for_variable_batch_size = scheduler
    modules = {"numpy": numpy, MODULE: ds}
    parts = MODULE.split(".")
    for i in range(1, len(parts)):
        modules[".".join(parts[:i])] = types.ModuleType(".".join(parts[:i]))
    return modules


def main():
    with tempfile.TemporaryDirectory(prefix="batches_snippet_") as work:
        check(work)


def check(work):
    code = snippet()
    effective = int(re.search(r"^effective = (\d+)", code, re.M).group(1))
    plan_dir = re.search(r'^plan = "(.*)"', code, re.M).group(1)
    prefix = os.path.join(work, "docs")
    subprocess.run([DSANALYZE, "generate", prefix, "--documents", "300", "--vocab-size", "500",
                    "--min-length", "1", "--max-length", "200", "--seed", "3"], check=True,
                   stdout=subprocess.DEVNULL)
    analysis = cli_check.run_analysis(work, "an", {"type": "documents", "prefixes": [prefix]},
                                      [{"name": "seqlen", "metric": "seqlen"}])
    os.makedirs(os.path.dirname(os.path.join(work, plan_dir)), exist_ok=True)
    subprocess.run([DSANALYZE, "batches", "--analysis", analysis, "--max-tokens", "600",
                    "--effective-batch-size", str(effective), "--order", "random",
                    "--out", os.path.join(work, plan_dir)], check=True, stdout=subprocess.DEVNULL)
    calls = {}
    saved = dict(sys.modules)
    sys.modules.update(stand_ins(calls))
    os.chdir(work)
    try:
        exec(code, {"dataset": None, "rank": 0, "world_size": 1, "collate_fn": None,
                    "optimizer": None})
    finally:
        sys.modules.clear()
        sys.modules.update(saved)
        os.chdir("/")
    seqlens = ref.read_pair(os.path.join(analysis, "seqlen", "seqlen_sample_to_metric"))
    micro, sizes, longest = ref.plan(seqlens, 600, order="random", effective=effective)
    want_ids = [(k // effective, mb) for k, mb in enumerate(micro)]
    if calls.get("dataloader") != (want_ids, longest):
        fail("dataloader_for_variable_batch_size got other microbatch_ids or batch_max_seqlens "
             "than batch_by_seqlens returns")
    if calls.get("scheduler") != (effective, sizes, "dataloader", "linear"):
        fail("lr_scheduler_for_variable_batch_size got %r" % (calls.get("scheduler"),))
    print("usage snippet: DeepSpeed gets batch_by_seqlens' results (%d micro-batches)"
          % len(micro))


main()
