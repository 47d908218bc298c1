#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The exit and cost comparison: every PM timer mode, one lab boot.

Boots the nested KVM lab once under `-icount shift=0,sleep=off` (so one
L1 nanosecond is one instruction and the figures repeat exactly), runs the
firmware's PM timer read loop under pvsmm-vmm in each available mode, and
prints per read: instructions, KVM exits, exits to userspace and
reflections.  The same rows go to results/compare.json.  With
--kernel-series 6.1,6.12 it boots the lab once per Debian kernel series,
each with its own patched modules (host/kvm/patches-6.12/ for 6.12), and
compares each ratio of 6.12 with 6.1's (within 5%, the design's bar).

Rows: `user` (the VMM's userspace PM timer, QEMU's path today),
`kernel-emu` (the in-kernel comparator) and `private` (KVM reflects on the
private path) in each paging mode the firmware's self-test runs in (long,
PAE, 2-level 32-bit); `window` (the opt-in exit-less path, long mode
only); `reflect-user` (our VMM performs the reflection, on stock KVM).  At
1 and 4 vCPUs.  The patched modes need `make kvm-modules`.  The lab's L0
is the QEMU of `make qemu-lab` when it is built: Debian's QEMU 7.2 writes
the Accessed bit into PAE PDPTEs (tests/lab/qemu/).

With --cpu intel the lab is kvm-intel under Bochs (tests/lab/run-in-lab.sh):
Bochs's time is instruction-driven too, its TSC counts instructions, and
L1 takes that TSC to run at the Skylake-X model's 3.5 GHz, so a cost in L1
nanoseconds times L1's TSC rate (read from its kernel log) is instructions.
Both are lab proxies, not hardware time; the two labs' figures compare
within a table, not across (different CPUs, KVM paths and emulators).

"""
import argparse
import json
import os
import re
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


def row_of(run, instr_per_ns=1.0):
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
        "instructions_per_read": per_read(span * instr_per_ns, reads),
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


# The 6.12 port against 6.1: the same ratio may differ by this much.
KERNEL_RATIO_TOLERANCE = 0.05


def patched_built(series):
    sub = "" if series == "6.1" else series + "/"
    return os.path.exists(os.path.join(TOP, "build/kvm/%spatched/kvm.ko" % sub))


def kernel_comparison(ratios, series):
    """Each ratio of a later kernel series against the first one's."""
    first = {(r["path"], r["guest_mode"], r["vcpus"]): r
             for r in ratios if r["kernel"] == series[0]}
    out = []
    for r in ratios:
        base = first.get((r["path"], r["guest_mode"], r["vcpus"]))
        if r["kernel"] == series[0] or not base:
            continue
        change = round(r["ratio"] / base["ratio"] - 1, 3)
        out.append({"path": r["path"], "guest_mode": r["guest_mode"],
                    "vcpus": r["vcpus"], "over": r["over"],
                    "kernel": r["kernel"], "base_kernel": series[0],
                    "ratio": r["ratio"], "base_ratio": base["ratio"],
                    "change": change,
                    "within": abs(change) <= KERNEL_RATIO_TOLERANCE})
    return out


def run_series(args, series, lab_name, params):
    """One lab boot on Debian's kernel of this series: its rows and ratios
    (tagged with the series), and whether a run failed."""
    os.environ["PVSMM_KSERIES"] = series	# run-in-lab.sh, tools/kver.sh
    modules = args.modules
    if modules == "auto":
        modules = "patched" if patched_built(series) else "stock"
    runs = plan(modules, [int(v) for v in args.vcpus.split(",")], args.reads)
    others = {}
    rc, _ = lab.run_lab(runs, modules=modules, icount=True, cpu=args.cpu,
                        kvm_params=args.kvm_param, timeout=2400,
                        prologue=lab.framed("tsc", "dmesg | grep -m1 'MHz TSC'"),
                        others=others)
    failed = [r for r in runs if r.rc != 0 or r.stats is None]
    for r in failed:
        print("compare: %s: run %s failed (rc=%s):" % (series, r.describe(), r.rc),
              file=sys.stderr)
        print("\n".join("    " + l for l in r.output[-20:]), file=sys.stderr)
    instr_per_ns, clock = 1.0, "icount: 1 instruction = 1 ns"
    if args.cpu == "intel":
        # Bochs: the TSC counts instructions; L1's clock runs on it at the
        # rate its kernel logged ("tsc: Detected 3500.000 MHz TSC").
        m = re.search(r"Detected ([0-9.]+) MHz TSC",
                      "\n".join(others.get("tsc", {}).get("output", [])))
        if not m:
            print("compare: %s: no TSC rate in L1's kernel log" % series,
                  file=sys.stderr)
            return modules, clock, instr_per_ns, [], [], True
        instr_per_ns = float(m.group(1)) / 1000
        clock = "Bochs: 1 L1 ns = %.4f instructions (TSC)" % instr_per_ns
    rows = [dict(row_of(r, instr_per_ns), kernel=series)
            for r in runs if r not in failed]
    print("pvsmm: PM timer read cost in the nested KVM lab (%s%s, Linux %s, "
          "%s KVM modules, %s; lab proxies, not hardware time)" %
          (lab_name, params, series, modules, clock))
    print_table(rows)
    ratios = [dict(r, kernel=series) for r in ratios_of(rows)]
    for r in ratios:
        print("%-7s %-4s %d vCPU%s: %s / %s = %.3f (target <= %.2f, 0 userspace "
              "exits): %s" %
              (r["path"], r["guest_mode"], r["vcpus"], "s" if r["vcpus"] > 1 else "",
               r["path"], r["over"], r["ratio"], r["target"],
               "met" if r["met"] else "MISSED"))
    return modules, clock, instr_per_ns, rows, ratios, bool(failed) or rc == 125


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--modules", choices=["auto", "stock", "patched"], default="auto",
                    help="KVM modules in L1 (auto: patched when built)")
    ap.add_argument("--reads", type=int, default=20000,
                    help="PM timer reads per run (split over the vCPUs)")
    ap.add_argument("--vcpus", default="1,4", help="comma-separated vCPU counts")
    ap.add_argument("--cpu", choices=["amd", "intel"], default="amd",
                    help="L1's CPU: amd (QEMU/TCG, kvm-amd) or intel (Bochs, kvm-intel)")
    ap.add_argument("--kvm-param", action="append", default=[], metavar="P=V",
                    help="a kvm-amd/kvm-intel parameter (repeatable)")
    ap.add_argument("--kernel-series", default="6.1",
                    help="comma-separated Debian kernel series, one lab boot "
                         "each (6.1, 6.12); ratios of the later ones are "
                         "compared with the first's")
    ap.add_argument("--output", default=None,
                    help="JSON output (default results/compare.json, "
                         "results/compare-intel.json with --cpu intel)")
    args = ap.parse_args()
    if args.output is None:
        args.output = os.path.join(TOP, "results", "compare%s.json" %
                                   ("-intel" if args.cpu == "intel" else ""))
    series_list = args.kernel_series.split(",")
    if args.cpu == "amd":
        lab.use_lab_qemu()
    lab_name = {"amd": "kvm-amd under QEMU/TCG",
                "intel": "kvm-intel under Bochs"}[args.cpu]
    params = "".join(" " + p for p in args.kvm_param)
    rows, ratios, kernels, failed = [], [], {}, False
    for series in series_list:
        modules, clock, instr_per_ns, r_rows, r_ratios, r_failed = \
            run_series(args, series, lab_name, params)
        rows += r_rows
        ratios += r_ratios
        failed = failed or r_failed
        kernels[series] = {"modules": modules, "clock": clock,
                           "instructions_per_l1_ns": instr_per_ns}
    comparison = kernel_comparison(ratios, series_list)
    for c in comparison:
        print("Linux %s against %s: %s %s %d vCPU%s, %s / %s %.3f against %.3f "
              "(%+.1f%%): %s" %
              (c["kernel"], c["base_kernel"], c["path"], c["guest_mode"],
               c["vcpus"], "s" if c["vcpus"] > 1 else "", c["path"], c["over"],
               c["ratio"], c["base_ratio"], 100 * c["change"],
               "within %d%%" % (100 * KERNEL_RATIO_TOLERANCE) if c["within"]
               else "OUTSIDE %d%%" % (100 * KERNEL_RATIO_TOLERANCE)))
    os.makedirs(os.path.dirname(args.output), exist_ok=True)
    with open(args.output, "w") as f:
        json.dump({"lab": {"cpu": args.cpu,
                           "icount": "shift=0,sleep=off" if args.cpu == "amd"
                           else "Bochs clock sync=none, ips=3500000000",
                           "l0": os.environ.get("PVSMM_LAB_QEMU", "qemu-system-x86_64")
                           if args.cpu == "amd" else "bochs (tests/lab/bochs)",
                           "kvm_params": args.kvm_param,
                           "kernels": kernels},
                   "rows": rows, "ratios": ratios,
                   "kernel_comparison": comparison}, f, indent=2)
        f.write("\n")
    print("results written to %s" % os.path.relpath(args.output, TOP))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
