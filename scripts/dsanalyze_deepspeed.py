"""A `dsanalyze batches` plan into DeepSpeed's training loop, in place of DeepSpeed's own call.

DeepSpeed's get_dataloader_and_lr_scheduler_for_variable_batch_size_deepspeed
(deepspeed/runtime/data_pipeline/data_sampling/variable_batch_size_and_lr.py)
plans the batches with batch_by_seqlens, which cannot plan a real corpus
(docs/usage.md §15). This module's function of the same name takes the
plan `dsanalyze batches --out PLAN` wrote instead and does the rest exactly
as DeepSpeed's does: it hands the plan's arrays to DeepSpeed's own
dataloader_for_variable_batch_size and lr_scheduler_for_variable_batch_size
with the arguments DeepSpeed's wrapper passes, so every data-parallel rank
trains each optimizer step on the same samples, in the same micro-batches,
at the same learning rate as DeepSpeed's own call with that config.

Two lines of a training script change:

    from dsanalyze_deepspeed import \\
        get_dataloader_and_lr_scheduler_for_variable_batch_size_deepspeed
    dataloader, lr_scheduler, deepspeed_io_kwargs = \\
        get_dataloader_and_lr_scheduler_for_variable_batch_size_deepspeed(
            dataset, engine, "out/batches", dataloader_collate_fn=collate_fn)

Before building anything it checks the plan against the engine's config and
len(dataset) (check_plan); a mismatch raises one ValueError naming each key,
both values and the `dsanalyze batches` command that makes a matching plan.
A plan of K epochs (`--epochs K`) is K epochs' batches back to back: one
pass over the dataloader trains all K.

Needs the standard library and DeepSpeed (which brings torch); one file, to
copy beside a training script.
"""
import array
import ast
import json
import os
import shlex
import sys

from deepspeed.runtime.data_pipeline.data_sampling.variable_batch_size_and_lr import (
    dataloader_for_variable_batch_size, lr_scheduler_for_variable_batch_size)
from deepspeed.runtime.pipe.engine import PipelineEngine

SECTION = "data_efficiency.data_sampling.dynamic_batching."


def get_dataloader_and_lr_scheduler_for_variable_batch_size_deepspeed(
        dataset, engine, plan, dataloader_collate_fn=None, sample_padding_fn=None):
    """DeepSpeed's call of the same name, with the batches of the plan in folder `plan`.

    Returns (dataloader, lr_scheduler, deepspeed_io_kwargs) as DeepSpeed's does.
    Raises ValueError when the plan does not match `engine`'s config or `dataset`.
    """
    plan_json = read_plan_json(plan)
    check_plan(plan, plan_json, engine, dataset)
    efficiency = engine._config.data_efficiency_config
    sampling = efficiency["data_sampling"]
    batching = sampling["dynamic_batching"]
    microbatch_ids, batch_sizes, batch_max_seqlens = read_plan_arrays(plan, plan_json)
    pipeline = isinstance(engine, PipelineEngine)
    dataloader, deepspeed_io_kwargs = dataloader_for_variable_batch_size(
        dataset=dataset,
        microbatch_ids=microbatch_ids,
        batch_max_seqlens=batch_max_seqlens,
        dataloader_rank=engine.data_parallel_group.rank(),
        dataloader_batch_size=engine.train_micro_batch_size_per_gpu(),
        dataloader_num_replicas=engine.data_parallel_group.size(),
        dataloader_collate_fn=dataloader_collate_fn,
        dataloader_num_workers=sampling["num_workers"],
        dataloader_pin_memory=sampling["pin_memory"],
        required_microbatches_of_same_seqlen=pipeline,
        sample_padding_fn=sample_padding_fn,
    )
    lr_scheduler = lr_scheduler_for_variable_batch_size(
        base_batch_size=engine.train_batch_size(),
        batch_sizes=batch_sizes,
        dataloader=dataloader,
        lr_scheduler_or_optimizer=engine.lr_scheduler or engine.optimizer,
        lr_scaling_method=batching["lr_scaling_method"],
        verbose=batching["verbose"],
    )
    return dataloader, lr_scheduler, deepspeed_io_kwargs


def read_plan_json(plan):
    with open(os.path.join(plan, "plan.json")) as f:
        plan_json = json.load(f)
    if "dataset_samples" not in plan_json:
        raise ValueError("%s: plan.json has no dataset_samples: the plan was made by a dsanalyze "
                         "before the drop-in; make it again with `dsanalyze batches`" % plan)
    return plan_json


def _param(plan_json, key):
    return plan_json["parameters"][key]["value"]


def _lr_method(value):
    """DeepSpeed's scale_lr takes None and any case of "none" alike."""
    return "none" if value is None or str(value).upper() == "NONE" else str(value)


def _shown(value):
    return "none" if value is None else str(value)


def check_plan(plan, plan_json, engine, dataset):
    """Raises one ValueError listing every way the plan differs from what DeepSpeed's own call
    would plan for `engine`'s config and `dataset`, with the command that makes a matching plan.

    Values DeepSpeed treats alike compare equal: min_batch_size 0 and 1 (no minimum),
    max_batch_size 0 and None (no maximum), lr_scaling_method None and "none" in any case.
    The seed is compared only where it changes the plan: the random order, or several epochs.
    """
    efficiency = engine._config.data_efficiency_config
    batching = efficiency["data_sampling"]["dynamic_batching"]
    if not batching["enabled"]:
        raise ValueError(SECTION + "enabled is false in the DeepSpeed config; DeepSpeed's own call "
                         "refuses that too")
    config = {
        "effective_batch_size": engine.train_batch_size(),
        "max_tokens": batching["max_tokens"],
        "min_batch_size": batching["min_batch_size"],
        "max_batch_size": batching["max_batch_size"],
        "sequence_picking_order": batching["sequence_picking_order"],
        "lr_scaling_method": _lr_method(batching["lr_scaling_method"]),
        "seed": efficiency["seed"],
        "same_size_microbatches": isinstance(engine, PipelineEngine),
    }
    differences = _config_differences(plan_json, config)
    command = matching_command(plan, plan_json, config)
    if len(dataset) != plan_json["dataset_samples"]:
        differences.append("len(dataset) is %d but the plan's analysis %s has %d samples (another "
                           "dataset: analyse this one and plan from that analysis)"
                           % (len(dataset), plan_json["analysis"], plan_json["dataset_samples"]))
    if differences:
        raise ValueError("%s: the plan does not match this DeepSpeed run: %s. Make a matching "
                         "plan with: %s" % (plan, "; ".join(differences), command))


def _config_differences(plan_json, config):
    def normal(key, value):
        if key == "min_batch_size":
            return max(1, value or 0)
        if key == "max_batch_size":
            return value or None
        return value

    names = {"effective_batch_size": "train_batch_size", "seed": "data_efficiency.seed",
             "same_size_microbatches": "isinstance(engine, PipelineEngine) "
                                       "(required_microbatches_of_same_size)"}
    plan = {key: _param(plan_json, key) for key in config if key != "same_size_microbatches"}
    plan["same_size_microbatches"] = plan_json["parameters"]["same_size_microbatches"]
    seeded = plan["sequence_picking_order"] == "random" or _param(plan_json, "epochs") > 1
    differences = []
    for key, value in config.items():
        if key == "seed" and not seeded:
            continue
        if normal(key, value) != normal(key, plan[key]):
            differences.append("%s is %s in the config but %s in the plan"
                               % (names.get(key, SECTION + key), _shown(value),
                                  _shown(plan[key])))
    return differences


def matching_command(plan, plan_json, config):
    """The `dsanalyze batches` command that plans `config` from the plan's analysis."""
    args = ["dsanalyze", "batches", "--analysis", plan_json["analysis"],
            "--metric", plan_json["metric"],
            "--effective-batch-size", config["effective_batch_size"],
            "--max-tokens", config["max_tokens"],
            "--min-batch-size", config["min_batch_size"] or 0]
    if config["max_batch_size"]:
        args += ["--max-batch-size", config["max_batch_size"]]
    args += ["--order", config["sequence_picking_order"], "--seed", config["seed"],
             "--lr-scaling", config["lr_scaling_method"]]
    if config["same_size_microbatches"]:
        args.append("--same-size-microbatches")
    sample_ids = plan_json["parameters"]["sample_ids"]
    if sample_ids:
        args += ["--sample-ids", sample_ids]
    if _param(plan_json, "epochs") > 1:
        args += ["--epochs", _param(plan_json, "epochs")]
    args += ["--out", plan]
    return " ".join(shlex.quote(str(a)) for a in args)


def read_npy(path, typecode):
    """A 1-D little-endian int64 ("q") or float64 ("d") .npy, as dsanalyze writes them."""
    with open(path, "rb") as f:
        magic = f.read(8)
        if magic[:6] != b"\x93NUMPY":
            raise ValueError("%s: not a .npy file" % path)
        size_bytes = 2 if magic[6] == 1 else 4
        header_len = int.from_bytes(f.read(size_bytes), "little")
        header = ast.literal_eval(f.read(header_len).decode("latin1"))
        want = {"q": "<i8", "d": "<f8"}[typecode]
        if header["descr"] != want or header["fortran_order"] or len(header["shape"]) != 1:
            raise ValueError("%s: not a 1-D %s array: %r" % (path, want, header))
        values = array.array(typecode)
        values.fromfile(f, header["shape"][0])
    if sys.byteorder != "little":
        values.byteswap()
    return values


def read_plan_arrays(plan, plan_json):
    """batch_by_seqlens' three results, from the plan's arrays: microbatch_ids (a list of
    (batch id, sample id list)), batch_sizes and batch_max_seqlens (lists of int)."""
    def load(name):
        return read_npy(os.path.join(plan, name + ".npy"), "q").tolist()

    offsets, ids = load("microbatch_offsets"), load("microbatch_sample_ids")
    batch_sizes, batch_max_seqlens = load("batch_sizes"), load("batch_max_seqlens")
    effective = _param(plan_json, "effective_batch_size")
    if len(offsets) - 1 != len(batch_sizes) * effective or len(ids) != offsets[-1] or \
            len(batch_max_seqlens) != len(batch_sizes):
        raise ValueError("%s: the arrays disagree with each other (%d micro-batch offsets, %d ids, "
                         "%d batch sizes, %d batch max seqlens, effective batch size %d)"
                         % (plan, len(offsets), len(ids), len(batch_sizes),
                            len(batch_max_seqlens), effective))
    microbatch_ids = [(k // effective, ids[offsets[k]:offsets[k + 1]])
                      for k in range(len(offsets) - 1)]
    return microbatch_ids, batch_sizes, batch_max_seqlens
