#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The exit and cost comparison: every PM timer mode, one lab boot.

Boots the nested KVM lab once under `-icount shift=0,sleep=off` (so one
L1 nanosecond is one instruction and the figures repeat exactly), runs the
firmware's PM timer read loop under pvsmm-vmm in each available mode, and
prints per read: instructions, KVM exits, exits to userspace and
reflections.  The same rows go to results/compare.json.

Rows: `user` (the VMM's userspace PM timer, QEMU's path today),
`kernel-emu` (the in-kernel comparator) and `private` (KVM reflects on the
private path) in each paging mode the firmware's self-test runs in (long,
PAE, 2-level 32-bit); `window` (the opt-in exit-less path, long mode
only); `reflect-user` (our VMM performs the reflection, on stock KVM).  At
1 and 4 vCPUs.  The patched modes need `make kvm-modules`.  The lab's L0
is the QEMU of `make qemu-lab` when it is built: Debian's QEMU 7.2 writes
the Accessed bit into PAE PDPTEs (tests/lab/qemu/).
"""
import argparse
import json
import os
import sys

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.join(TOP, "pylib"))
from pvsmmlab import lab  # noqa: E402

GUEST_MODES = ["long", "pae", "32"]

# Targets of the design, in lab instructions per read (icount).
PRIVATE_OVER_USER = 0.80
WINDOW_OVER_KERNEL_EMU = 1.10


def per_read(value, reads):
    return round(value / reads, 3) if reads else None


def path_of(run):
    """Which way the read is served: user, kernel-emu, reflect-user, or
    reflection by KVM on the private path or through the window."""
    if run.mode != "reflect":
        return run.mode
    return "window" if "--window" in run.options else "private"


def row_of(run):
    bench = run.stats["bench"]
    reads = bench.get("reads") or 0
    kvm_stats = bench.get("kvm_stats", {})
    reflections = bench.get("reflections") or kvm_stats.get("pvsmm_reflections", 0)
    # On one L1 CPU the vCPU threads share the same instructions, so the
    # cost of a read is the whole span over all reads, not the sum of
    # per-vCPU spans.
    span = bench.get("ns_max", bench.get("ns", 0))
    return {
        "path": path_of(run),
        "guest_mode": run.guest_mode,
        "vcpus": run.vcpus,
        "reads": reads,
        "instructions_per_read": per_read(span, reads),
        "exits_per_read": per_read(bench.get("kvm_exits", 0), reads),
        "userspace_exits_per_read": per_read(bench.get("userspace_exits", 0), reads),
        "reflections_per_read": per_read(reflections, reads),
        "iret_returns": bench.get("iret_returns", kvm_stats.get("pvsmm_iret_returns", 0)),
        "exit_returns": bench.get("exit_returns", kvm_stats.get("pvsmm_exit_returns", 0)),
        "fallbacks": kvm_stats.get("pvsmm_fallbacks", bench.get("fallbacks", 0)),
        "selftest": run.selftest.get("status") if run.selftest else None,
    }


def ratios_of(rows):
    """Reflection against the two designs it competes with, per paging mode
    and vCPU count, with the targets and whether they are met."""
    cost = {(r["path"], r["guest_mode"], r["vcpus"]): r for r in rows}
    ratios = []
    for vcpus in sorted({r["vcpus"] for r in rows}):
        for gm in GUEST_MODES:
            user = cost.get(("user", gm, vcpus))
            kernel = cost.get(("kernel-emu", gm, vcpus))
            for path, base, target in (("private", user, PRIVATE_OVER_USER),
                                       ("window", kernel, WINDOW_OVER_KERNEL_EMU)):
                r = cost.get((path, gm, vcpus))
                if not r or not base:
                    continue
                ratio = round(r["instructions_per_read"] /
                              base["instructions_per_read"], 3)
                ratios.append({
                    "path": path, "guest_mode": gm, "vcpus": vcpus,
                    "over": base["path"], "ratio": ratio, "target": target,
                    "met": ratio <= target and r["userspace_exits_per_read"] == 0,
                    "userspace_exits_per_read": r["userspace_exits_per_read"],
                })
    return ratios


def print_table(rows, out=sys.stdout):
    head = ("path", "guest", "vCPUs", "reads", "instr/read", "exits/read",
            "user exits/read", "reflections/read", "self-test")
    fmt = "%-13s %-5s %5s %7s %11s %11s %16s %17s %9s"
    print(fmt % head, file=out)
    for r in rows:
        print(fmt % (r["path"], r["guest_mode"], r["vcpus"], r["reads"],
                     "%.1f" % r["instructions_per_read"],
                     "%.3f" % r["exits_per_read"],
                     "%.3f" % r["userspace_exits_per_read"],
                     "%.3f" % r["reflections_per_read"], r["selftest"]), file=out)


def plan(modules, vcpus_list, reads):
    """The runs: user, kernel-emu and reflection on the private path in each
    paging mode, the window in long mode, and the VMM's own reflection in
    long mode; stock modules only have user and reflect-user."""
    runs = []
    for vcpus in vcpus_list:
        per_vcpu = reads // vcpus
        for gm in GUEST_MODES:
            modes = (["user", "kernel-emu", "reflect"] if modules == "patched"
                     else ["user"])
            for mode in modes:
                runs.append(lab.Run("%s-%s-%d" % (mode, gm, vcpus), mode, vcpus,
                                    per_vcpu, 100, ["--guest-mode", gm]))
        if modules == "patched":
            runs.append(lab.Run("window-long-%d" % vcpus, "reflect", vcpus,
                                per_vcpu, 100, ["--guest-mode", "long", "--window"]))
        runs.append(lab.Run("reflect-user-long-%d" % vcpus, "reflect-user",
                            vcpus, per_vcpu, 100, ["--guest-mode", "long"]))
    for r in runs:
        r.guest_mode = r.options[r.options.index("--guest-mode") + 1]
    return runs


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--modules", choices=["auto", "stock", "patched"], default="auto",
                    help="KVM modules in L1 (auto: patched when built)")
    ap.add_argument("--reads", type=int, default=20000,
                    help="PM timer reads per run (split over the vCPUs)")
    ap.add_argument("--vcpus", default="1,4", help="comma-separated vCPU counts")
    ap.add_argument("--output", default=os.path.join(TOP, "results", "compare.json"))
    args = ap.parse_args()

    modules = args.modules
    if modules == "auto":
        built = os.path.exists(os.path.join(TOP, "build/kvm/patched/kvm.ko"))
        modules = "patched" if built else "stock"
    lab.use_lab_qemu()
    runs = plan(modules, [int(v) for v in args.vcpus.split(",")], args.reads)
    rc, _ = lab.run_lab(runs, modules=modules, icount=True, timeout=2400)
    failed = [r for r in runs if r.rc != 0 or r.stats is None]
    for r in failed:
        print("compare: run %s failed (rc=%s):" % (r.describe(), r.rc), file=sys.stderr)
        print("\n".join("    " + l for l in r.output[-20:]), file=sys.stderr)
    rows = [row_of(r) for r in runs if r not in failed]
    print("pvsmm: PM timer read cost in the nested KVM lab (%s KVM modules, "
          "icount: 1 instruction = 1 ns; a lab proxy, not hardware time)" % modules)
    print_table(rows)
    ratios = ratios_of(rows)
    for r in ratios:
        print("%-7s %-4s %d vCPU%s: %s / %s = %.3f (target <= %.2f, 0 userspace "
              "exits): %s" %
              (r["path"], r["guest_mode"], r["vcpus"], "s" if r["vcpus"] > 1 else "",
               r["path"], r["over"], r["ratio"], r["target"],
               "met" if r["met"] else "MISSED"))
    os.makedirs(os.path.dirname(args.output), exist_ok=True)
    with open(args.output, "w") as f:
        json.dump({"lab": {"modules": modules, "icount": "shift=0,sleep=off",
                           "l0": os.environ.get("PVSMM_LAB_QEMU", "qemu-system-x86_64")},
                   "rows": rows, "ratios": ratios}, f, indent=2)
        f.write("\n")
    print("results written to %s" % os.path.relpath(args.output, TOP))
    return 1 if failed or rc == 125 else 0


if __name__ == "__main__":
    sys.exit(main())
