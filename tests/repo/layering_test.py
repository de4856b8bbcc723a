#!/usr/bin/env python3
"""The engine is layered as lib/CMakeLists.txt declares it: each
dsanalyze_folder(<folder> USES ...) line names the folders <folder> links, and
that library links nothing else (its link check fails to link on a call into
an undeclared folder). This checks what the linker cannot see:
- every lib/ folder has a line, and every line a folder;
- a folder includes only itself and the folders it declares, and includes
  every folder it declares (the declarations are exact);
- the declarations form no cycle;
- docs/architecture.md's folder table shows each folder's declared uses.
Exits 1 naming each problem, 0 otherwise.

Usage: layering_test.py [SOURCE_DIR]   (default: $SOURCE_DIR or the repo root)
"""
import os
import re
import sys
from pathlib import Path


def declared_uses(lib: Path) -> dict:
    """{folder: set of folders it USES}, from lib/CMakeLists.txt."""
    text = (lib / "CMakeLists.txt").read_text()
    uses = {}
    for m in re.finditer(r"^dsanalyze_folder\(([a-z_]+)([^)]*)\)", text, re.M):
        words = m.group(2).split()
        listed = words[words.index("USES") + 1:] if "USES" in words else []
        if "EXTERNAL" in listed:
            listed = listed[:listed.index("EXTERNAL")]
        uses[m.group(1)] = set(listed)
    if not uses:
        sys.exit("layering: lib/CMakeLists.txt: no dsanalyze_folder(...) lines")
    return uses


def included_folders(lib: Path, folder: str) -> dict:
    """{folder included: first 'file:line' that includes it} for one lib/ folder."""
    found = {}
    for src in sorted((lib / folder).rglob("*")):
        if src.suffix not in (".h", ".cc"):
            continue
        for n, line in enumerate(src.read_text().splitlines(), 1):
            m = re.match(r'#include "([a-z_]+)/', line)
            if m and m.group(1) != folder:
                found.setdefault(m.group(1), f"{src.relative_to(lib.parent)}:{n}")
    return found


def include_problems(lib: Path, uses: dict) -> list:
    folders = {p.name for p in lib.iterdir() if p.is_dir() and p.name != "include"}
    problems = [f"lib/{f}/ has no dsanalyze_folder line" for f in sorted(folders - uses.keys())]
    problems += [f"dsanalyze_folder({f}): no lib/{f}/" for f in sorted(uses.keys() - folders)]
    for folder in sorted(folders & uses.keys()):
        found = included_folders(lib, folder)
        for target, where in sorted(found.items()):
            if target not in uses[folder]:
                problems.append(f"{where}: {folder}/ includes {target}/, which it does not declare")
        for target in sorted(uses[folder] - found.keys()):
            problems.append(f"{folder}/ declares {target}/ but includes nothing of it")
    return problems


def cycle(uses: dict) -> list:
    """One cycle of the declarations as a list of folders, or []."""
    state = {}

    def visit(f, path):
        state[f] = "open"
        for g in sorted(uses.get(f, ())):
            if state.get(g) == "open":
                return path[path.index(g):] + [g]
            if g not in state:
                found = visit(g, path + [g])
                if found:
                    return found
        state[f] = "done"
        return []

    for f in sorted(uses):
        if f not in state:
            found = visit(f, [f])
            if found:
                return found
    return []


def doc_problems(root: Path, uses: dict) -> list:
    """docs/architecture.md's rows '| `lib/<folder>` | <uses or —> | job |'."""
    shown = {}
    for line in (root / "docs" / "architecture.md").read_text().splitlines():
        m = re.match(r"\| `lib/([a-z_]+)` \| ([^|]*) \|", line)
        if m:
            words = m.group(2).split()
            shown[m.group(1)] = set() if words == ["—"] else set(words)
    problems = []
    for folder in sorted(uses.keys() | shown.keys()):
        if folder not in shown:
            problems.append(f"docs/architecture.md: no row for lib/{folder}")
        elif shown[folder] != uses.get(folder):
            want = " ".join(sorted(uses.get(folder, ()))) or "—"
            problems.append(f"docs/architecture.md: lib/{folder} uses '{want}' (lib/CMakeLists.txt)")
    return problems


def main() -> int:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("SOURCE_DIR", "."))
    uses = declared_uses(root / "lib")
    problems = include_problems(root / "lib", uses) + doc_problems(root, uses)
    loop = cycle(uses)
    if loop:
        problems.append(f"lib/CMakeLists.txt: the declarations loop: {' -> '.join(loop)}")
    for p in problems:
        print(p)
    if problems:
        return 1
    edges = sum(len(u) for u in uses.values())
    print(f"layering: {len(uses)} folders, {edges} declared uses, each included, none else, no cycle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
