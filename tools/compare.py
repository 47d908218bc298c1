#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The exit and cost comparison: every PM timer mode, one lab boot.

Boots the nested KVM lab once under `-icount shift=0,sleep=off` (so one
L1 nanosecond is one instruction and the figures repeat exactly), runs the
firmware's PM timer read loop under pvsmm-vmm in each available mode and
in each paging mode of the self-test (long, PAE, 2-level: each row names
its paging mode and, for the reflecting modes, the path: the private path
by default, the window with --window, long mode only), and prints per
read: instructions, KVM exits, exits to userspace and reflections.  The
same rows go to results/compare.json.

Modes: `user` (the VMM's userspace PM timer, QEMU's path today) and
`reflect-user` (our VMM performs the reflection) run on Debian's stock
KVM; `kernel-emu` (the in-kernel comparator) and `reflect` (reflection in
KVM) need the patched modules (`make kvm-modules`) and are added when
they are built.
"""
import argparse
import json
import os
import sys

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(TOP, "tests", "lab"))
import lab  # noqa: E402

STOCK_MODES = ["user", "reflect-user"]
PATCHED_MODES = ["user", "kernel-emu", "reflect-user", "reflect"]


def per_read(value, reads):
    return round(value / reads, 3) if reads else None


def row_of(run):
    bench = run.stats["bench"]
    reads = bench.get("reads") or 0
    kvm_stats = bench.get("kvm_stats", {})
    reflections = bench.get("reflections") or kvm_stats.get("pvsmm_reflections", 0)
    # On one L1 CPU the vCPU threads share the same instructions, so the
    # cost of a read is the whole span over all reads, not the sum of
    # per-vCPU spans.
    span = bench.get("ns_max", bench.get("ns", 0))
    guest_mode = run.stats.get("guest_mode", "long")
    return {
        "mode": run.mode,
        "guest_mode": guest_mode,
        "path": ("window" if "--window" in run.options else "private")
        if run.mode.startswith("reflect") else "-",
        "vcpus": run.vcpus,
        "reads": reads,
        "instructions_per_read": per_read(span, reads),
        "exits_per_read": per_read(bench.get("kvm_exits", 0), reads),
        "userspace_exits_per_read": per_read(bench.get("userspace_exits", 0), reads),
        "reflections_per_read": per_read(reflections, reads),
        "iret_returns": bench.get("iret_returns", kvm_stats.get("pvsmm_iret_returns", 0)),
        "exit_returns": bench.get("exit_returns", kvm_stats.get("pvsmm_exit_returns", 0)),
        "selftest": run.selftest.get("status") if run.selftest else None,
    }


def ratios_of(rows):
    """Reflection against the designs it competes with, per paging mode and
    vCPU count (issue 12's targets: private <= 0.80 x user, window <= 1.10 x
    kernel-emu)."""
    cost = {(r["mode"], r["guest_mode"], r["path"], r["vcpus"]):
            r["instructions_per_read"] for r in rows}
    ratios = []
    for vcpus in sorted({r["vcpus"] for r in rows}):
        for gm in ("long", "pae", "32"):
            user = cost.get(("user", gm, "-", vcpus))
            kernel = cost.get(("kernel-emu", gm, "-", vcpus))
            for mode in ("reflect", "reflect-user"):
                private = cost.get((mode, gm, "private", vcpus))
                window = cost.get((mode, gm, "window", vcpus))
                r = {"vcpus": vcpus, "guest_mode": gm, "mode": mode}
                if private and user:
                    r["private_over_user"] = round(private / user, 3)
                if window and kernel:
                    r["window_over_kernel_emu"] = round(window / kernel, 3)
                if window and user:
                    r["window_over_user"] = round(window / user, 3)
                if len(r) > 3:
                    ratios.append(r)
    return ratios


def print_table(rows, out=sys.stdout):
    head = ("mode", "paging", "path", "vCPUs", "reads", "instr/read",
            "exits/read", "user exits/read", "reflections/read", "self-test")
    fmt = "%-13s %6s %7s %5s %8s %11s %11s %16s %17s %9s"
    print(fmt % head, file=out)
    for r in rows:
        print(fmt % (r["mode"], r["guest_mode"], r["path"], r["vcpus"], r["reads"],
                     "%.1f" % r["instructions_per_read"],
                     "%.3f" % r["exits_per_read"],
                     "%.3f" % r["userspace_exits_per_read"],
                     "%.3f" % r["reflections_per_read"], r["selftest"]), file=out)


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
    modes = PATCHED_MODES if modules == "patched" else STOCK_MODES
    runs = []
    for vcpus in [int(v) for v in args.vcpus.split(",")]:
        for gm in ("long", "pae", "32"):
            for mode in modes:
                runs.append(lab.Run("%s-%s-%d" % (mode, gm, vcpus), mode, vcpus,
                                    args.reads // vcpus, 100,
                                    ["--guest-mode=%s" % gm]))
        # The window (IRETQ, no second exit), long mode only.
        for mode in modes:
            if mode.startswith("reflect"):
                runs.append(lab.Run("%s-window-%d" % (mode, vcpus), mode, vcpus,
                                    args.reads // vcpus, 100, ["--window"]))
    rc, _ = lab.run_lab(runs, modules=modules, icount=True)
    failed = [r for r in runs if r.rc != 0 or r.stats is None]
    for r in failed:
        print("compare: run %s failed (rc=%s):" % (r.describe(), r.rc), file=sys.stderr)
        print("\n".join("    " + l for l in r.output[-20:]), file=sys.stderr)
    rows = [row_of(r) for r in runs if r not in failed]
    print("pvsmm: PM timer read cost in the nested KVM lab (%s KVM modules, "
          "icount: 1 instruction = 1 ns)" % modules)
    print_table(rows)
    ratios = ratios_of(rows)
    for r in ratios:
        said = ["%s=%.3f" % (k, v) for k, v in r.items()
                if k.endswith(("_user", "_emu"))]
        print("%d vCPU%s, %s, %s: %s" % (r["vcpus"], "s" if r["vcpus"] > 1 else "",
                                          r["guest_mode"], r["mode"], ", ".join(said)))
    print("targets (issue 12): private_over_user <= 0.80, "
          "window_over_kernel_emu <= 1.10")
    os.makedirs(os.path.dirname(args.output), exist_ok=True)
    with open(args.output, "w") as f:
        json.dump({"lab": {"modules": modules, "icount": "shift=0,sleep=off"},
                   "modes": rows, "ratios": ratios}, f, indent=2)
        f.write("\n")
    print("results written to %s" % os.path.relpath(args.output, TOP))
    return 1 if failed or rc == 125 else 0


if __name__ == "__main__":
    sys.exit(main())
