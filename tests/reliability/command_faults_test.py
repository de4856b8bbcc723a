#!/usr/bin/env python3
"""Faults of `dsanalyze order` and `dsanalyze batches` (docs/reliability.md).

    command_faults_test.py order|batches kill|signals|disk_full

An analysis is made on $NP ranks; --out then holds an earlier result of the
command (other parameters, so other bytes). The test-only pause hook
(lib/util/fault_point.h) stops the command at each write step: <cmd>_create
(the temporary output created), <cmd>_write (the first piece or batch
written), <cmd>_commit (the output complete, before the rename).

kill:      SIGKILL there: --out and every visible entry of its folder are
           unchanged, a hidden temporary entry is left (the kill hit mid-
           write), and the next invocation removes it and writes what a clean
           invocation writes. Also: an invocation run while another is paused
           (alive, holding its lease) leaves that one's temporary entry alone
           (batches: is refused, exit 3 and one line naming the lock's holder,
           as --out is locked), and the paused one, resumed, completes.
signals:   SIGINT and SIGTERM there: exit 130/143 and the one line
           "dsanalyze: interrupted by SIGxxx during write; nothing was
           committed", --out unchanged, nothing hidden left; at the commit
           step the signal lets the commit complete: exit 0, the new output,
           and one warning line.
disk_full: --out on a 256 KiB tmpfs (a private mount namespace; needs root,
           else exit 77 = skipped): exit 3, one line naming the file and "No
           space left on device", nothing left in the tmpfs, an earlier
           result there unchanged.

Environment: NP, MPIEXEC, DSANALYZE, SOURCE_DIR.
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.environ["SOURCE_DIR"], "tests", "support"))
import cli_check  # noqa: E402

DSANALYZE = os.environ["DSANALYZE"]
POINTS = ("create", "write", "commit")


def fail(message):
    sys.exit("FAIL: " + message)


def analysis(work):
    prefix = os.path.join(work, "docs")
    subprocess.run([DSANALYZE, "generate", prefix, "--documents", "40000", "--vocab-size", "500",
                    "--min-length", "1", "--max-length", "300", "--seed", "5"],
                   check=True, stdout=subprocess.DEVNULL)
    return cli_check.run_analysis(work, "analysis", {"type": "documents", "prefixes": [prefix]},
                                  [{"name": "seqlen", "metric": "seqlen"}])


def command(cmd, analysis_dir, out, variant):
    """The command line; variant 0 and 1 write different bytes."""
    if cmd == "order":
        return [DSANALYZE, "order", "--analysis", analysis_dir, "--metric", "seqlen",
                "--buckets", "8", "--seed", str(variant), "--out", out]
    return [DSANALYZE, "batches", "--analysis", analysis_dir, "--max-tokens", str(2048 + variant),
            "--effective-batch-size", "8", "--order", "random", "--seed", str(variant), "--out", out]


def snapshot(folder):
    """Every entry below `folder` (names and bytes), hidden ones included."""
    out = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = os.path.join(root, name)
            rel = os.path.relpath(path, folder)
            out[rel] = open(path, "rb").read() if os.path.isfile(path) else None
    return out


def hidden(folder):
    return sorted(n for n in os.listdir(folder) if n.startswith("."))


def visible(snap):
    return {k: v for k, v in snap.items() if not k.split(os.sep)[0].startswith(".")}


def run(argv, expect):
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    if proc.returncode != expect:
        fail("%s: exit %d, expected %d: %s" % (" ".join(argv), proc.returncode, expect,
                                               proc.stderr))
    return proc


class Paused:
    """The command started with the pause hook armed, stopped at `point`."""

    def __init__(self, argv, point, work):
        self.pid_file = os.path.join(work, "paused.pid")
        if os.path.exists(self.pid_file):
            os.remove(self.pid_file)
        env = dict(os.environ, DSANALYZE_TEST_PAUSE_AT=point + ":0",
                   DSANALYZE_TEST_PAUSE_FILE=self.pid_file)
        env.pop("PMI_RANK", None)
        self.proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 60
        while not os.path.exists(self.pid_file):
            if self.proc.poll() is not None or time.time() > deadline:
                self.proc.kill()
                fail("%s: never paused at %s: %s" % (argv[1], point, self.proc.communicate()))
            time.sleep(0.02)
        self.pid = int(open(self.pid_file).read())
        if self.pid != self.proc.pid:
            fail("the paused pid %d is not the command's %d" % (self.pid, self.proc.pid))

    def signal_and_resume(self, sig):
        os.kill(self.pid, sig)
        time.sleep(0.1)  # the stopped process has it pending
        os.kill(self.pid, signal.SIGCONT)
        return self.finish()

    def finish(self):
        out, err = self.proc.communicate(timeout=60)
        said = [l for l in err.splitlines() if not l.startswith("dsanalyze: test pause at ")]
        return self.proc.returncode, said, out


def setup(cmd, work):
    a = analysis(work)
    folder = os.path.join(work, "outputs")
    os.mkdir(folder)
    with open(os.path.join(folder, "notes.txt"), "w") as f:
        f.write("a user's file\n")
    out = os.path.join(folder, "order.npy" if cmd == "order" else "plan")
    clean = os.path.join(work, "clean", os.path.basename(out))
    os.makedirs(os.path.dirname(clean))
    run(command(cmd, a, clean, 1), 0)
    return a, folder, out, snapshot(os.path.dirname(clean))


def reset(cmd, a, folder, out):
    """--out holds the earlier result (variant 0), nothing hidden."""
    for name in hidden(folder):
        path = os.path.join(folder, name)
        shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
    run(command(cmd, a, out, 0), 0)
    return snapshot(folder)


def check_kill(cmd, work):
    a, folder, out, clean = setup(cmd, work)
    for point in POINTS:
        before = reset(cmd, a, folder, out)
        paused = Paused(command(cmd, a, out, 1), cmd + "_" + point, work)
        os.kill(paused.pid, signal.SIGKILL)
        paused.proc.communicate(timeout=60)
        after = snapshot(folder)
        if visible(after) != visible(before):
            fail("%s killed at %s: the visible entries changed" % (cmd, point))
        if not hidden(folder):
            fail("%s killed at %s: no temporary entry: the kill did not hit the write" % (cmd, point))
        run(command(cmd, a, out, 1), 0)
        if hidden(folder):
            fail("%s killed at %s: the next invocation left %s" % (cmd, point, hidden(folder)))
        written = snapshot(folder)
        base = os.path.basename(out)
        if {k: v for k, v in written.items() if k.split(os.sep)[0] == base} != clean:
            fail("%s killed at %s: the next invocation's output differs from a clean one" %
                 (cmd, point))
        print("%s: killed at %s: --out unchanged, the next invocation cleaned up" % (cmd, point))
    check_live_lease(cmd, a, folder, out, work)


def check_live_lease(cmd, a, folder, out, work):
    reset(cmd, a, folder, out)
    paused = Paused(command(cmd, a, out, 1), cmd + "_write", work)
    mine = hidden(folder)
    before = snapshot(folder)
    if cmd == "batches":  # --out is locked: refused at once, naming the holder
        proc = run(command(cmd, a, out, 0), 3)
        lines = proc.stderr.splitlines()
        if len(lines) != 1 or "another dsanalyze run is writing here" not in lines[0] or \
                "held by pid %d on host" % paused.pid not in lines[0] or proc.stdout or \
                snapshot(folder) != before:
            fail("batches beside a live one: %r, stdout %r" % (proc.stderr, proc.stdout))
        print("batches beside a live one: exit 3, " + lines[0])
    else:
        run(command(cmd, a, out, 0), 0)
    if hidden(folder) != mine:
        fail("%s: an invocation removed a live one's %s" % (cmd, mine))
    os.kill(paused.pid, signal.SIGCONT)
    rc, said, _ = paused.finish()
    if rc != 0 or said or hidden(folder):
        fail("%s: the resumed invocation: exit %d, %s, left %s" % (cmd, rc, said, hidden(folder)))
    print("%s: a live invocation's temporary entry is left alone" % cmd)


def check_signals(cmd, work):
    a, folder, out, clean = setup(cmd, work)
    for sig, name, code in ((signal.SIGINT, "SIGINT", 130), (signal.SIGTERM, "SIGTERM", 143)):
        for point in POINTS:
            before = reset(cmd, a, folder, out)
            paused = Paused(command(cmd, a, out, 1), cmd + "_" + point, work)
            rc, said, stdout = paused.signal_and_resume(sig)
            label = "%s, %s at %s" % (cmd, name, point)
            if hidden(folder):
                fail("%s: left %s" % (label, hidden(folder)))
            if point == "commit":
                warning = "dsanalyze: warning: %s arrived during the commit, which was completed"
                if rc != 0 or said != [warning % name] or not stdout:
                    fail("%s: exit %d, stderr %s, expected 0 and one warning" % (label, rc, said))
                continue
            line = "dsanalyze: interrupted by %s during write; nothing was committed" % name
            if rc != code or said != [line] or stdout:
                fail("%s: exit %d, stderr %s, stdout %r; expected %d and %r" %
                     (label, rc, said, stdout, code, line))
            if snapshot(folder) != before:
                fail("%s: the folder of --out changed" % label)
            print("%s: exit %d, one line, --out unchanged" % (label, rc))


def check_disk_full(cmd, work):
    a = analysis(work)
    disk = os.path.join(work, "disk")
    os.mkdir(disk)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", disk]).returncode:
        print("SKIP: cannot mount a tmpfs")
        sys.exit(77)
    try:
        fill_disk(cmd, a, disk, work)
    finally:
        subprocess.run(["umount", disk])


def fill_disk(cmd, a, disk, work):
    """40000 ids (320 KB) do not fit in 256 KiB; a plan of 512 samples does."""
    with open(os.path.join(disk, "notes.txt"), "w") as f:
        f.write("a user's file\n")
    out = os.path.join(disk, "order.npy" if cmd == "order" else "plan")
    if cmd == "batches":  # an earlier, small plan stays as it was
        run(command(cmd, a, out, 0)[:-2] + ["--sample-ids", ids_file(work, 512), "--out", out], 0)
    before = snapshot(disk)
    proc = run(command(cmd, a, out, 1), 3)
    lines = proc.stderr.splitlines()
    if len(lines) != 1 or not lines[0].startswith("dsanalyze: error: ") or \
            "No space left on device" not in lines[0] or disk not in lines[0]:
        fail("%s on a full disk: expected one error line naming the file: %r" % (cmd, proc.stderr))
    if snapshot(disk) != before:
        fail("%s on a full disk: left %s" % (cmd, sorted(set(snapshot(disk)) - set(before))))
    print("%s on a full disk: exit 3, %s" % (cmd, lines[0]))


def ids_file(work, n):
    """A .npy of sample ids 0..n-1 (int64), for --sample-ids."""
    path = os.path.join(work, "ids.npy")
    header = "{'descr': '<i8', 'fortran_order': False, 'shape': (%d,), }" % n
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode())
        f.write(b"".join(i.to_bytes(8, "little") for i in range(n)))
    return path


def main():
    cmd, mode = sys.argv[1], sys.argv[2]
    if mode == "disk_full" and not os.environ.get("COMMAND_FAULTS_IN_NAMESPACE"):
        if os.geteuid() != 0:
            print("SKIP: needs root (mounts a tmpfs)")
            sys.exit(77)
        os.execvpe("unshare", ["unshare", "-m", "--propagation", "private", sys.executable] +
                   sys.argv, dict(os.environ, COMMAND_FAULTS_IN_NAMESPACE="1"))
    with tempfile.TemporaryDirectory() as work:
        {"kill": check_kill, "signals": check_signals, "disk_full": check_disk_full}[mode](cmd, work)
    print("PASS")


if __name__ == "__main__":
    main()
