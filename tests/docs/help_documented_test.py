#!/usr/bin/env python3
"""Every command-line option and every config key is documented.

    help_documented_test.py        (env: SOURCE_DIR, DSANALYZE)

- Options: runs `dsanalyze --help` and `dsanalyze COMMAND --help` for every command that
  `--help` lists, takes each long option (`--name`) from the option column, and fails naming
  each one that no page of docs/ mentions as `--name`.
- Config keys: the loader checks every object's keys against lists of known keys (the
  `std::array<std::string_view, N>` tables of lib/config/, and each built-in metric's
  params in lib/metrics/registry.cc; the unknown-key error comes from them). It fails naming
  each key, and each built-in metric `dsanalyze metrics` lists, that docs/config.md does not
  write in code (backticks). So that a new way of listing keys cannot slip by, every
  `CheckKnown(...)` call of those files must take a table read here, or one of the few
  arguments KNOWN_ELSEWHERE explains.
"""
import os
import re
import subprocess
import sys

# CheckKnown arguments that are not a table of their own file, and where their keys are read.
KNOWN_ELSEWHERE = {
    "known": "dataset keys: CommonDatasetKeys + DatasetTypeKeys, tables of dataset_types.cc",
    "DatasetTypeKeys(gpt)": "a blend entry's keys: megatron_gpt's table in dataset_types.cc",
    "it->params": "a built-in metric's params: the k*Params tables of registry.cc",
}
KEY_SOURCES = ["lib/config/*.cc", "lib/config/*.h", "lib/metrics/registry.cc"]


def run(args):
    result = subprocess.run(args, capture_output=True, text=True, timeout=60)
    if result.returncode != 0:
        sys.exit(f"FAIL: {' '.join(args)} exited {result.returncode}: {result.stderr}")
    return result.stdout + result.stderr


def help_sections(text):
    """{section title: [lines]} of a CLI11 help text ("Options:", "Subcommands:", ...)."""
    sections, current = {}, None
    for line in text.splitlines():
        if re.match(r"^[A-Za-z][A-Za-z ]*:\s*$", line):
            current = line.strip().rstrip(":").lower()
            sections[current] = []
        elif current is not None and line.strip():
            sections[current].append(line)
    return sections


def long_options(text):
    """The long options of a help text's option column: `  -c,--config TEXT  ...`."""
    options = []
    for lines in help_sections(text).values():
        for line in lines:
            names = re.match(r"^\s+(-[^\s]+)", line)
            if names:
                options += [n for n in names.group(1).split(",") if n.startswith("--")]
    return options


def commands(text):
    sections = help_sections(text)
    lines = sections.get("subcommands") or []
    return [m.group(1) for m in (re.match(r"^\s+([a-z][a-z_-]*)\s", l) for l in lines) if m]


def docs_text(source_dir):
    folder = os.path.join(source_dir, "docs")
    return "\n".join(open(os.path.join(folder, name), encoding="utf-8").read()
                     for name in sorted(os.listdir(folder)) if name.endswith(".md"))


def undocumented_options(binary, docs):
    top = run([binary, "--help"])
    names = commands(top)
    if len(names) < 2:
        sys.exit(f"FAIL: found no subcommands in `dsanalyze --help`:\n{top}")
    missing, seen = [], 0
    for command, text in [("dsanalyze", top)] + [
            (f"dsanalyze {name}", run([binary, name, "--help"])) for name in names]:
        options = long_options(text)
        if "--help" not in options:
            sys.exit(f"FAIL: found no options in `{command} --help` (has its format changed?):\n{text}")
        seen += len(options)
        for option in options:
            if not re.search(r"(?<![\w-])" + re.escape(option) + r"(?![\w-])", docs):
                missing.append(f"{command}: {option} is in --help but not in docs/")
    print(f"options: {seen} in the --help of dsanalyze and {len(names)} commands")
    return missing


def key_tables(path):
    """[(table name, line, [keys])] of the std::array<std::string_view, N> tables in a file
    (a name may repeat: each function has its own kKeys)."""
    text = open(path, encoding="utf-8").read()
    tables = []
    pattern = r"std::array<std::string_view,\s*(\d+)>\s+(\w+)\s*=\s*\{(.*?)\};"
    for m in re.finditer(pattern, text, re.S):
        keys = re.findall(r'"([^"]*)"', m.group(3))
        if len(keys) != int(m.group(1)):
            sys.exit(f"FAIL: {path}: {m.group(2)} holds {m.group(1)} names but {len(keys)} were "
                     "read: teach help_documented_test.py its layout")
        tables.append((m.group(2), text.count("\n", 0, m.start()) + 1, keys))
    return text, tables


def code_spans(markdown):
    """The text in code of a Markdown page: fenced blocks, and `spans` within a paragraph."""
    spans, paragraph, fence = [], [], None
    for line in markdown.splitlines() + [""]:
        if fence is not None:
            if line.strip().startswith(fence):
                fence = None
            else:
                spans.append(line)
        elif re.match(r"^\s*(```|~~~)", line):
            fence = line.strip()[:3]
        if fence is not None or not line.strip():
            spans += re.findall(r"`([^`]+)`", " ".join(paragraph))
            paragraph = []
        elif not re.match(r"^\s*(```|~~~)", line):
            paragraph.append(line)
    return spans


def undocumented_keys(source_dir, binary):
    import glob
    config_md = open(os.path.join(source_dir, "docs/config.md"), encoding="utf-8").read()
    in_code = set()
    for span in code_spans(config_md):
        in_code.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", span))
    missing, unexplained, count = [], [], 0
    for pattern in KEY_SOURCES:
        for path in sorted(glob.glob(os.path.join(source_dir, pattern))):
            rel = os.path.relpath(path, source_dir)
            text, tables = key_tables(path)
            for name, line, keys in tables:
                count += len(keys)
                missing += [f"{rel}:{line}: {name}: config key \"{k}\" is not in docs/config.md"
                            for k in keys if k not in in_code]
            for m in re.finditer(r"\.CheckKnown\(([^,()]*(?:\([^()]*\))?)", text):
                argument = m.group(1).strip()
                if argument not in {t[0] for t in tables} and argument not in KNOWN_ELSEWHERE:
                    line = text.count("\n", 0, m.start()) + 1
                    unexplained.append(f"{rel}:{line}: CheckKnown({argument}): where its keys "
                                       "come from is unknown to help_documented_test.py")
    metrics = re.findall(r"^  (\w+)\s+(?:single_value_per_sample|accumulate_value_over_samples)",
                         run([binary, "metrics"]), re.M)
    if not metrics:
        sys.exit("FAIL: found no metrics in `dsanalyze metrics`")
    missing += [f"dsanalyze metrics: built-in metric \"{m}\" is not in docs/config.md"
                for m in metrics if m not in in_code]
    print(f"config: {count} key names in {', '.join(KEY_SOURCES)}, {len(metrics)} built-in metrics")
    return missing + unexplained


def main():
    source_dir, binary = os.environ["SOURCE_DIR"], os.environ["DSANALYZE"]
    failures = undocumented_options(binary, docs_text(source_dir))
    failures += undocumented_keys(source_dir, binary)
    for failure in failures:
        print(f"FAIL: {failure}")
    if failures:
        sys.exit(f"FAIL: {len(failures)} undocumented option(s) or key(s)")
    print("every --help option is in docs/, every config key in docs/config.md")


if __name__ == "__main__":
    main()
