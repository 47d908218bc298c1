# SPDX-License-Identifier: MIT
"""Runs pvsmm-vmm in the nested KVM lab and takes its output apart.

One lab boot runs many VMM runs (tests/lab/guest-runs.sh); each run gives
its exit status, the firmware self-test line and the VMM's PVSMM-STATS
JSON (host/vmm/STATS.md).  Used by the lab tests (tests/lab/check.py)
and the benchmark (tools/compare.py), so both read the lab the same way.
"""
import json
import os
import re
import subprocess
import sys

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


class Run:
    def __init__(self, run_id, mode, vcpus, reads, check_reads, options=()):
        self.id, self.mode, self.vcpus = run_id, mode, vcpus
        self.reads, self.check_reads = reads, check_reads
        self.options = list(options)
        self.rc = None
        self.output = []
        self.selftest = None
        self.stats = None

    def spec(self):
        words = [self.id, self.mode, str(self.vcpus), str(self.reads),
                 str(self.check_reads)] + self.options
        return " ".join(words)

    def describe(self):
        extra = " " + " ".join(self.options) if self.options else ""
        return "%s (%s, %d vCPU%s%s)" % (self.id, self.mode, self.vcpus,
                                        "s" if self.vcpus > 1 else "", extra)


SELFTEST = re.compile(r"PVSMM-SELFTEST (.*)$")


def parse_selftest(line):
    fields = {}
    for word in line.split():
        key, _, value = word.partition("=")
        fields[key] = int(value) if value.isdigit() else value
    return fields


LAB_QEMU = os.path.join(TOP, "build/qemu-lab/qemu-system-x86_64")


def use_lab_qemu():
    """Boot L1 on the lab's own QEMU (`make qemu-lab`) when it is built:
    Debian's QEMU 7.2 sets the Accessed bit in PAE PDPTEs and aborts on a
    busy TSS in TR (tests/lab/qemu/), so 32-bit guests need it.  Returns
    whether it is used; PVSMM_LAB_QEMU set by the caller wins."""
    if os.environ.get("PVSMM_LAB_QEMU"):
        return True
    if os.access(LAB_QEMU, os.X_OK):
        os.environ["PVSMM_LAB_QEMU"] = LAB_QEMU
        return True
    return False


def boot(inner, modules="stock", icount=True, timeout=1200, log=None,
         options=()):
    """Boots the lab once, runs the shell command `inner` in L1 and returns
    the finished subprocess (stdout: the command's output; returncode:
    its status, or 125 when the lab itself failed).  `options` are more
    run-in-lab.sh options (--with-qemu, --add SRC:DEST, ...)."""
    cmd = [os.path.join(TOP, "tests/lab/run-in-lab.sh"), "--modules", modules,
           "--timeout", str(timeout)]
    if icount:
        cmd.append("--icount")
    if log:
        cmd += ["--log", log]
    cmd += list(options) + ["--", inner]
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, errors="replace")


def frames(stdout):
    """Takes framed output ("=== RUN ID" ... "=== END ID rc=N") apart:
    yields (ID, line) for each line inside a frame and (ID, rc) as an int
    for the frame's end."""
    current = None
    for line in stdout.splitlines():
        m = re.match(r"=== RUN (\S+)$", line)
        if m:
            current = m.group(1)
            continue
        m = re.match(r"=== END (\S+) rc=(\d+)$", line)
        if m and current is not None:
            yield current, int(m.group(2))
            current = None
            continue
        if current is not None:
            yield current, line


def run_lab(runs, modules="stock", icount=True, timeout=1200, log=None):
    """Boots the lab once and performs every run; fills in each Run."""
    inner = "sh /pvsmm/guest-runs.sh " + " ".join("'%s'" % r.spec() for r in runs)
    proc = boot(inner, modules=modules, icount=icount, timeout=timeout, log=log)
    by_id = {r.id: r for r in runs}
    for run_id, line in frames(proc.stdout):
        current = by_id.get(run_id)
        if current is None:
            continue
        if isinstance(line, int):
            current.rc = line
            continue
        current.output.append(line)
        m = SELFTEST.search(line)
        if m:
            current.selftest = parse_selftest(m.group(1))
        if line.startswith("PVSMM-STATS "):
            try:
                current.stats = json.loads(line[len("PVSMM-STATS "):])
            except ValueError as err:
                current.output.append("(unparsable PVSMM-STATS: %s)" % err)
    if proc.returncode == 125 or any(r.rc is None for r in runs):
        sys.stderr.write(proc.stderr)
    return proc.returncode, proc.stderr
