#!/usr/bin/env python3
"""Runs every shell command of a Markdown document, as written, so the document cannot rot.

    doc_commands_test.py DOC.md        (env: SOURCE_DIR, BUILD_DIR)

Every fenced block whose info string is `sh` is a command block; the blocks run in
document order as one bash script (`set -euo pipefail`), so a later block sees the files
an earlier one made. The script runs in an empty scratch folder laid out like a fresh
clone after `scripts/setup.sh`: each top-level entry of the source tree is linked into it
and `build/` is the build under test. Other fences (json, console, text) are examples,
not commands.

A few commands cannot run as written inside the test suite; STAND_INS maps each to the
command that runs in its place and says why, and the trace names each one used.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

STAND_INS = {
    # The suite would run itself again, forever: run its machinery on one test instead.
    "scripts/test.sh": "scripts/test.sh -R '^repo[.]self_contained$'",
    # Installing system-wide needs root and changes the machine: install into the scratch
    # folder instead (same command, another prefix).
    "cmake --install build --prefix /usr/local": "cmake --install build --prefix \"$PWD/prefix\"",
    # No Slurm here: the batch script runs as a plain script (cluster.slurm submits it to a
    # real one-node Slurm).
    "DSANALYZE=$PWD/build/dsanalyze sbatch scripts/slurm/dsanalyze.sbatch run.json":
        "DSANALYZE=$PWD/build/dsanalyze bash scripts/slurm/dsanalyze.sbatch run.json",
}


def command_blocks(text):
    """The `sh` fenced blocks of a Markdown text, in order, as (line number, body)."""
    blocks, body, start = [], None, 0
    for number, line in enumerate(text.splitlines(), 1):
        fence = re.match(r"^\s*```(\S*)", line)
        if body is None and fence and fence.group(1) == "sh":
            body, start = [], number
        elif body is not None and fence:
            blocks.append((start, body))
            body = None
        elif body is not None:
            body.append(line)
    if body is not None:
        sys.exit(f"FAIL: unclosed command block at line {start}")
    return blocks


def apply_stand_ins(lines, used):
    out = []
    for line in lines:
        command = re.sub(r"\s+#.*$", "", line).strip()
        if command in STAND_INS:
            used.add(command)
            out.append(f"echo '[doc test] stand-in for: {command}' >&2")
            line = STAND_INS[command]
        out.append(line)
    return out


def scratch_clone(source_dir, build_dir):
    root = tempfile.mkdtemp(prefix="dsanalyze-doc-")
    for name in os.listdir(source_dir):
        if name in (".git", "build") or name.startswith("build-") or name in ("out", "data"):
            continue
        os.symlink(os.path.join(source_dir, name), os.path.join(root, name))
    os.symlink(build_dir, os.path.join(root, "build"))
    return root


def main():
    doc = sys.argv[1]
    source_dir, build_dir = os.environ["SOURCE_DIR"], os.environ["BUILD_DIR"]
    blocks = command_blocks(open(doc, encoding="utf-8").read())
    if not blocks:
        sys.exit(f"FAIL: {doc} has no `sh` command block")
    used = set()
    script = ["set -euo pipefail"]
    for start, body in blocks:
        script.append(f"echo '[doc test] {os.path.basename(doc)} line {start}' >&2")
        script += apply_stand_ins(body, used)
    root = scratch_clone(source_dir, build_dir)
    try:
        result = subprocess.run(["bash", "-x", "-c", "\n".join(script)], cwd=root,
                                stdin=subprocess.DEVNULL, timeout=900)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    if result.returncode != 0:
        sys.exit(f"FAIL: a command of {doc} exited {result.returncode} (trace above)")
    lines = sum(len(body) for _, body in blocks)
    print(f"{os.path.basename(doc)}: {len(blocks)} command block(s), {lines} line(s), all ran")


if __name__ == "__main__":
    main()
