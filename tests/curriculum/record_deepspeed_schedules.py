#!/usr/bin/env python3
"""Records DeepSpeed's own curriculum difficulties for tests/curriculum/schedule_test.cc.

Usage: record_deepspeed_schedules.py DEEPSPEED_CHECKOUT > deepspeed_schedules.json

Imports deepspeed/runtime/data_pipeline/curriculum_scheduler.py and its
constants.py straight from the checkout (no install, no torch: the package's
deepspeed.utils.logger is stubbed through sys.modules), builds one
CurriculumScheduler per config below and records update_difficulty(step) for
steps 1..K, exactly as DeepSpeedDataSampler calls it (once per global batch,
curriculum_step starting at 1). Standard library only.

deepspeed_schedules.json in this folder was made from DeepSpeed commit
38327e07f6cd39b63418f60cedd1651b0be3e7c3 with:
  git -C DeepSpeed worktree add /tmp/ds 38327e07f6cd39b63418f60cedd1651b0be3e7c3
  python3 tests/curriculum/record_deepspeed_schedules.py /tmp/ds \
    > tests/curriculum/deepspeed_schedules.json
"""
import importlib.util
import json
import logging
import os
import sys
import types


def load_scheduler(checkout):
    """CurriculumScheduler from the checkout, with only its two imports provided."""
    pipeline = os.path.join(checkout, "deepspeed", "runtime", "data_pipeline")
    for name in ("deepspeed", "deepspeed.runtime", "deepspeed.runtime.data_pipeline"):
        sys.modules[name] = types.ModuleType(name)
        sys.modules[name].__path__ = []
    utils = types.ModuleType("deepspeed.utils")
    utils.logger = logging.getLogger("deepspeed-stub")
    utils.logger.addHandler(logging.NullHandler())  # no difficulty_step % 8 advice
    utils.logger.propagate = False
    sys.modules["deepspeed.utils"] = utils
    for short in ("constants", "curriculum_scheduler"):
        full = "deepspeed.runtime.data_pipeline." + short
        spec = importlib.util.spec_from_file_location(full, os.path.join(pipeline, short + ".py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[full] = module
        spec.loader.exec_module(module)
    return sys.modules["deepspeed.runtime.data_pipeline.curriculum_scheduler"].CurriculumScheduler


def root(total, step, degree, lo, hi):
    return {"min_difficulty": lo, "max_difficulty": hi, "schedule_type": "fixed_root",
            "schedule_config": {"total_curriculum_step": total, "difficulty_step": step,
                                "root_degree": degree}}


def linear(total, step, lo, hi):
    return {"min_difficulty": lo, "max_difficulty": hi, "schedule_type": "fixed_linear",
            "schedule_config": {"total_curriculum_step": total, "difficulty_step": step}}


def discrete(difficulty, max_step, lo, hi):
    return {"min_difficulty": lo, "max_difficulty": hi, "schedule_type": "fixed_discrete",
            "schedule_config": {"difficulty": difficulty, "max_step": max_step}}


COMMIT = "38327e07f6cd39b63418f60cedd1651b0be3e7c3"
COMMENT = ("Made by tests/curriculum/record_deepspeed_schedules.py DEEPSPEED_CHECKOUT at DeepSpeed "
           "commit " + COMMIT + " (its docstring has the commands): CurriculumScheduler("
           "config).update_difficulty(step) for steps 1..len(difficulties). Do not edit by hand.")

# (name, config, K): value-like ranges (seqlen 8..1024, 0..300, negative) and
# percentile-like ones (1..100, 0..100), difficulty_step 1 and 8, root 2 and 3.
CASES = [
    ("linear_seqlen_step8", linear(1000, 8, 8, 1024), 1100),
    ("linear_percentile_step1", linear(500, 1, 1, 100), 520),
    ("linear_negative_step8", linear(300, 8, -50, 77), 320),
    ("root2_percentile_step1", root(110, 1, 2, 1, 100), 130),
    ("root2_value_step8", root(2000, 8, 2, 3, 300), 2100),
    ("root3_percentile_step1", root(700, 1, 3, 0, 100), 720),
    ("root3_value_step8", root(450, 8, 3, 64, 2048), 470),
    ("root2_max_not_multiple", root(50, 8, 2, 1, 100), 80),
    ("root2_float_degree", root(333, 1, 2.5, 5, 1000), 350),
    ("discrete_value", discrete([8, 64, 256, 1024], [10, 20, 35], 8, 1024), 45),
    ("discrete_percentile", discrete([1, 50, 100], [3, 7], 1, 100), 12),
    ("discrete_down_and_up", discrete([40, 20, 90, 100], [4, 9, 15], 10, 100), 20),
    ("discrete_unsorted_steps", discrete([5, 9, 12], [10, 4], 5, 100), 15),
    ("min_equals_max", linear(100, 1, 7, 7), 5),
]


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    scheduler_class = load_scheduler(argv[1])
    out = []
    for name, config, k in CASES:
        scheduler = scheduler_class(json.loads(json.dumps(config)))
        difficulties = [scheduler.update_difficulty(step) for step in range(1, k + 1)]
        out.append({"name": name, "config": config, "difficulties": difficulties})
    json.dump({"_comment": COMMENT, "deepspeed_commit": COMMIT, "cases": out},
              sys.stdout, indent=None, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv)
