#!/usr/bin/env python3
"""The engine is layered: a lib/ folder includes only itself and the folders
listed before it in lib/CMakeLists.txt's concern order, so the include graph
has no cycle and reads bottom-up. Exits 1 naming each include that points up
(or to a folder missing from the list), 0 otherwise.

Usage: layering_test.py [SOURCE_DIR]   (default: $SOURCE_DIR or the repo root)
"""
import os
import re
import sys
from pathlib import Path


def concern_order(lib: Path) -> list:
    text = (lib / "CMakeLists.txt").read_text()
    m = re.search(r"foreach\(concern ([a-z_ ]+)\)", text)
    if not m:
        sys.exit("layering: lib/CMakeLists.txt: no foreach(concern ...) list")
    return m.group(1).split()


def upward_includes(lib: Path, order: list) -> list:
    rank = {name: i for i, name in enumerate(order)}
    problems = []
    for src in sorted(lib.rglob("*")):
        if src.suffix not in (".h", ".cc") or src.parent.name == "dsanalyze":
            continue
        folder = src.relative_to(lib).parts[0]
        for n, line in enumerate(src.read_text().splitlines(), 1):
            m = re.match(r'#include "([a-z_]+)/', line)
            if not m or m.group(1) == folder:
                continue
            target = m.group(1)
            where = f"{src.relative_to(lib.parent)}:{n}"
            if folder not in rank or target not in rank:
                problems.append(f"{where}: {folder}/ or {target}/ is not in the concern list")
            elif rank[target] > rank[folder]:
                problems.append(f"{where}: {folder}/ includes {target}/, which comes after it")
    return problems


def main() -> int:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("SOURCE_DIR", "."))
    lib = root / "lib"
    order = concern_order(lib)
    problems = upward_includes(lib, order)
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"layering: {len(order)} folders, every include points down: {' < '.join(order)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
