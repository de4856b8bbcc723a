#!/usr/bin/env python3
"""Every integer option of every command refuses a value past its type
(ctest cli.integer_options.np1).

The table is read from the binary itself: the commands from `dsanalyze
--help`, and from each command's --help every option of type INT (int64) or
UINT (uint64), so an integer option added later is covered without a change
here. For each option and each value past its type (2^64, -1 and 10^20 for
UINT; 2^63, -2^63 - 1 and 10^20 for INT) the command must exit 2 with
exactly one line, "dsanalyze: error: OPTION: expected an integer from MIN to
MAX, got "VALUE"; see dsanalyze COMMAND --help" (a count may say "expected a
positive integer" for a negative value), and nothing on stdout.
CLI11 alone clamped them (--seed 18446744073709551616 ran with 2^64 - 1,
--max-tokens 99999999999999999999 with 2^63 - 1). The largest and smallest
values of each type pass the check, and a leading zero is decimal (generate
--documents 010 writes 10 documents, not octal 8).

Environment: DSANALYZE.
"""
import os
import re
import subprocess
import sys
import tempfile

DSANALYZE = os.environ["DSANALYZE"]
RANGES = {"UINT": ("0", "18446744073709551615"),
          "INT": ("-9223372036854775808", "9223372036854775807")}
PAST = {"UINT": ["18446744073709551616", "-1", "99999999999999999999"],
        "INT": ["9223372036854775808", "-9223372036854775809", "99999999999999999999"]}
# Commands that have integer options, so an empty table cannot pass.
EXPECTED = {("generate", "--seed"), ("order", "--seed"), ("batches", "--seed"),
            ("batches", "--max-tokens"), ("curriculum", "--global-batch-size")}


def help_text(*command):
    return subprocess.run([DSANALYZE, *command, "--help"], capture_output=True, text=True,
                          check=True).stdout


def commands():
    text = help_text()
    block = text[text.index("Subcommands:"):]
    return re.findall(r"^  ([a-z]+)\s", block, re.M)


def integer_options(command):
    """(option, type) for each option whose type is INT or UINT."""
    return re.findall(r"^\s+(?:-\w,)?(--[\w-]+) (U?INT)\b", help_text(command), re.M)


def run(argv):
    return subprocess.run([DSANALYZE] + argv, capture_output=True, text=True, timeout=60)


def check_refused(command, option, kind, value):
    """A count (POSITIVE) may say so for a value below 1 instead."""
    r = run([command, option, value])
    expected = ["an integer from %s to %s" % RANGES[kind]]
    if value.startswith("-"):
        expected.append("a positive integer")
    lines = ['dsanalyze: error: %s: expected %s, got "%s"; see dsanalyze %s --help' %
             (option, e, value, command) for e in expected]
    if r.returncode != 2 or len(r.stderr.splitlines()) != 1 or \
            r.stderr.splitlines()[0] not in lines or r.stdout:
        sys.exit("FAIL: %s %s %s: exit %d, stderr %r, stdout %r; expected 2 and one of %r" %
                 (command, option, value, r.returncode, r.stderr, r.stdout, lines))


def check_in_range(command, option, kind):
    for value in RANGES[kind]:
        r = run([command, option, value])
        if "expected an integer from" in r.stderr:
            sys.exit("FAIL: %s %s %s refused: %r" % (command, option, value, r.stderr))


def check_leading_zero():
    with tempfile.TemporaryDirectory() as work:
        prefix = os.path.join(work, "docs")
        subprocess.run([DSANALYZE, "generate", prefix, "--documents", "010", "--max-length", "4"],
                       check=True, stdout=subprocess.DEVNULL)
        shown = subprocess.run([DSANALYZE, "inspect", prefix, "--json"], capture_output=True,
                               text=True, check=True).stdout
        if '"num_rows": 10' not in shown.replace('"num_rows":10', '"num_rows": 10'):
            sys.exit("FAIL: --documents 010 did not write 10 documents: " + shown[:200])


def main():
    table = [(c, o, k) for c in commands() for o, k in integer_options(c)]
    missing = EXPECTED - {(c, o) for c, o, _ in table}
    if missing:
        sys.exit("FAIL: integer options not found in --help: %s" % sorted(missing))
    for command, option, kind in table:
        for value in PAST[kind]:
            check_refused(command, option, kind, value)
        check_in_range(command, option, kind)
        print("ok: %s %s (%s)" % (command, option, kind))
    check_leading_zero()
    print("%d integer options of %d commands refuse values past their type" %
          (len(table), len({c for c, _, _ in table})))


main()
