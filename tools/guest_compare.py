#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The real-guest comparison: a Linux guest whose clocksource is the ACPI
PM timer, calling gettimeofday() in a loop (the 2010 RFC's benchmark),
under every pvsmm-vmm PM timer mode and under stock QEMU, without and
(qemu-rom: SeaBIOS + pvsmm.rom, the shim) with pvsmm, 1 and 4 vCPUs.

One lab boot, without icount (an L2 Linux does not finish under it), so
times are wall-clock time of an emulated machine: compare the rows of one
run with each other, as ratios; the exit counts are exact whatever the
speed.  Each configuration runs --repeat times (interleaved) and the
fastest run makes the row: load from elsewhere on the lab's host only
ever slows a run down.  What each column counts is written out in pylib/pvsmmlab/guestlab.py.
Writes results/guest.json and results/guest.png (cost per call by mode,
grouped per guest) and prints the table.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.join(TOP, "pylib"))
from pvsmmlab import guestlab  # noqa: E402

ORDER = ["qemu", "qemu-rom", "user", "reflect-user", "kernel-emu", "reflect",
         "window"]

# The design's targets: gettimeofday() at least this many times faster
# than under our VMM's userspace PM timer (by the median of the runs).
TARGETS = {("i386", "reflect"): 1.25, ("i686", "reflect"): 1.25,
           ("amd64", "window"): 1.8}


def fmt(value, spec):
    return "-" if value is None else spec % value


def print_table(rows, out=sys.stdout):
    head = ("guest", "mode", "vCPUs", "calls", "ns/call", "cycles/call",
            "exits/call", "user exits/call", "refl/call", "clocksource",
            "stable", "back")
    f = "%-6s %-13s %5s %7s %9s %11s %10s %15s %9s %-11s %6s %4s"
    print(f % head, file=out)
    for r in rows:
        print(f % (r["guest"], r["mode"], r["vcpus"], r["calls"],
                   fmt(r["ns_per_gettimeofday"], "%.0f"),
                   fmt(r["cycles_per_call"], "%.0f"),
                   fmt(r["exits_per_call"], "%.3f"),
                   fmt(r["userspace_exits_per_call"], "%.3f"),
                   fmt(r["reflections_per_call"], "%.3f"),
                   r["clocksource"] or "-",
                   {True: "yes", False: "NO", None: "-"}[r["clocksource_stable"]],
                   fmt(r["backwards_steps"], "%d")), file=out)


def plot(rows, path):
    """Bars of ns per gettimeofday, one cluster per mode (1 and 4 vCPUs),
    one group per guest; gnuplot (gnuplot-nox) draws it."""
    gnuplot = shutil.which("gnuplot")
    if not gnuplot:
        print("guest_compare: gnuplot not found, no plot (make deps)", file=sys.stderr)
        return False
    guests = [g for g in guestlab.GUESTS if any(r["guest"] == g for r in rows)]
    vcpus = sorted({r["vcpus"] for r in rows})
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "guest.dat")
        with open(data, "w") as f:
            for g in guests:
                f.write("# %s\n" % g)
                for mode in ORDER:
                    vals = []
                    for v in vcpus:
                        match = [r for r in rows if r["guest"] == g and
                                 r["mode"] == mode and r["vcpus"] == v]
                        ns = match[0]["ns_per_gettimeofday"] if match else None
                        vals.append("%.1f" % (ns / 1000.0) if ns else "NaN")
                    if any(v != "NaN" for v in vals):
                        f.write('"%s" %s\n' % (mode, " ".join(vals)))
                f.write("\n\n")
        parts = []
        for i, g in enumerate(guests):
            for j, v in enumerate(vcpus):
                npt = [r["l1_npt"] for r in rows if r["guest"] == g][:1]
                label = g + " guest" + ("" if npt != [False] else " (L1 npt=0)")
                src = ("newhistogram \"%s\" offset 0,-2.5 lt 1, '%s' index %d"
                       % (label, data, i)
                       if j == 0 else "''  index %d" % i)
                xtic = ":xtic(1)" if j == 0 else ""
                title = ("title '%d vCPU%s'" % (v, "s" if v > 1 else "")
                         if i == 0 else "notitle")
                parts.append("%s using %d%s %s" % (src, j + 2, xtic, title))
        script = "\n".join([
            "set terminal pngcairo size 960,540 font 'sans,10' noenhanced",
            "set output '%s'" % path,
            "set title 'gettimeofday() with clocksource=acpi_pm, nested KVM lab "
            "(wall time, no icount)'",
            "set ylabel 'microseconds per call (log scale)'",
            "set style data histogram",
            "set style histogram clustered gap 1",
            "set style fill solid 0.8 border -1",
            "set boxwidth 0.9",
            # Log scale: the 32-bit generic-return rows are ten times the
            # rest and would flatten every other bar.
            "set logscale y",
            "set yrange [10:*]",
            "set grid ytics mytics",
            "set key top left",
            "set xtics nomirror rotate by -30",
            "set bmargin 7",
            "plot " + ", ".join(parts),
        ])
        proc = subprocess.run([gnuplot], input=script, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if proc.returncode != 0:
            print("guest_compare: gnuplot failed:\n" + proc.stderr, file=sys.stderr)
            return False
    return True


def best_rows(runs):
    """One row per configuration: the fastest of its runs that kept
    acpi_pm (a 32-bit kernel can drop it at boot, see
    tests/guest/README.md; such a run is fast and measures kvm-clock), with
    every run's time kept in ns_samples."""
    groups = {}
    for r in runs:
        if r.result is not None:
            groups.setdefault((r.guest, r.kind, r.vcpus), []).append(r)
    rows = []
    for group in groups.values():
        samples = [r.result.get("ns_per_gettimeofday") for r in group]
        good = [r for r in group if r.result.get("clocksource") == "acpi_pm"]
        best = min(good or group,
                   key=lambda r: r.result.get("ns_per_gettimeofday") or 0)
        row = guestlab.row_of(best)
        row["ns_samples"] = samples
        kept = [r.result.get("ns_per_gettimeofday") for r in good
                if r.result.get("ns_per_gettimeofday")]
        row["ns_median"] = statistics.median(kept) if kept else None
        row["ns_spread"] = [min(kept), max(kept)] if kept else None
        rows.append(row)
    return rows


def speedups(rows):
    """Each mode's speed-up over `user` for the same guest and vCPU count,
    by the median of the runs that kept acpi_pm (the fastest run is the
    row, but one lucky run is no comparison), with the design's target
    where it has one."""
    user = {(r["guest"], r["vcpus"]): r["ns_median"] for r in rows
            if r["mode"] == "user"}
    out = []
    for r in rows:
        base = user.get((r["guest"], r["vcpus"]))
        if r["mode"] == "user" or not base or not r["ns_median"]:
            continue
        target = TARGETS.get((r["guest"], r["mode"]))
        ratio = round(base / r["ns_median"], 3)
        out.append({"guest": r["guest"], "mode": r["mode"], "vcpus": r["vcpus"],
                    "speedup_over_user": ratio, "target": target,
                    "met": None if target is None else ratio >= target,
                    "runs": len(r["ns_samples"])})
    return out


def print_speedups(ratios, out=sys.stdout):
    print("speed-up over user (median of each configuration's runs):", file=out)
    for s in ratios:
        verdict = "" if s["target"] is None else " (target >= %.2f: %s)" % (
            s["target"], "met" if s["met"] else "MISSED")
        print("  %-6s %-13s %d vCPU%s: %.2fx%s" % (
            s["guest"], s["mode"], s["vcpus"], "s" if s["vcpus"] > 1 else " ",
            s["speedup_over_user"], verdict), file=out)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--modules", choices=["auto", "stock", "patched"], default="auto",
                    help="KVM modules in L1 (auto: patched when built)")
    ap.add_argument("--guests", default="amd64,i386",
                    help="comma-separated: amd64, i386 (686-pae), i686 (686, no PAE)")
    ap.add_argument("--kinds", default="auto",
                    help="qemu and pvsmm-vmm modes, comma-separated (auto: all that can run)")
    ap.add_argument("--vcpus", default="1,4")
    ap.add_argument("--calls", type=int, default=20000)
    ap.add_argument("--mono", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=2,
                    help="runs per configuration; the fastest is the row")
    ap.add_argument("--run-timeout", type=int, default=400)
    ap.add_argument("--i386-npt", choices=["auto", "0", "1"], default="auto",
                    help="L1's nested paging for the i386 (PAE) guest (auto: "
                    "off, KVM's shadow MMU; 1 needs the lab's own QEMU)")
    ap.add_argument("--i686-npt", choices=["auto", "0", "1"], default="auto",
                    help="L1's nested paging for the i686 (non-PAE) guest "
                    "(auto: on; 0: KVM's shadow MMU)")
    ap.add_argument("--output", default=os.path.join(TOP, "results", "guest.json"))
    ap.add_argument("--replot", action="store_true",
                    help="no lab: print the table and draw the plot from --output")
    ap.add_argument("--from-log", metavar="LOG",
                    help="no lab: take the runs from a lab console log "
                    "(build/lab/guest-compare.log) and write the results again")
    args = ap.parse_args()
    png = os.path.splitext(args.output)[0] + ".png"
    if args.replot:
        with open(args.output) as f:
            rows = json.load(f)["rows"]
        print_table(rows)
        return 0 if plot(rows, png) else 1
    if args.from_log:
        with open(args.from_log, errors="replace") as f:
            runs = runs_from_log(f.read())
        modules = args.modules if args.modules != "auto" else "unknown (from a log)"
        return report(runs, modules, args.output, png, 0)

    modules = args.modules
    if modules == "auto":
        modules = "patched" if guestlab.patched_built() else "stock"
    if args.kinds == "auto":
        kinds = ["qemu"]
        if modules == "patched" and guestlab.qemu_rom_built():
            kinds.append("qemu-rom")
        if guestlab.vmm_supports_kernel():
            kinds += [k for k in guestlab.PVSMM_MODES
                      if modules == "patched" or k not in guestlab.PATCHED_ONLY]
        else:
            print("guest_compare: build/host/pvsmm-vmm has no --kernel: "
                  "stock QEMU only", file=sys.stderr)
    else:
        kinds = args.kinds.split(",")
    lab_qemu = guestlab.lab.use_lab_qemu()
    cannot = guestlab.lab_cannot(lab_qemu)
    for (g, k), why in cannot.items():
        if g in args.guests.split(",") and k in kinds:
            print("guest_compare: no %s row under %s: %s" % (g, k, why),
                  file=sys.stderr)
    choice = {"auto": None, "0": False, "1": True}
    npt = {"i386": choice[args.i386_npt], "i686": choice[args.i686_npt]}
    if npt["i386"] and not lab_qemu:
        print("guest_compare: --i386-npt 1 needs the lab's own QEMU "
              "(make qemu-lab): Debian's sets the Accessed bit in PAE PDPTEs",
              file=sys.stderr)
        return 2
    runs = guestlab.plan(args.guests.split(","), kinds,
                         [int(v) for v in args.vcpus.split(",")],
                         args.calls, args.mono, args.repeat, cannot, npt)
    rc = guestlab.run_guests(runs, modules=modules, run_timeout=args.run_timeout,
                             log=os.path.join(TOP, "build/lab/guest-compare.log"))
    return report(runs, modules, args.output, png, rc)


def runs_from_log(text):
    """The runs of a lab console log, rebuilt from their frames' IDs."""
    runs = {}
    for run_id, line in guestlab.lab.frames(text):
        parsed = guestlab.parse_run_id(run_id)
        if not parsed:
            continue
        if run_id not in runs:
            run = guestlab.GuestRun(*parsed, 0, 0)
            run.id = run_id
            runs[run_id] = run
        if isinstance(line, int):
            runs[run_id].rc = line
        else:
            runs[run_id].take(line)
    return list(runs.values())


def report(runs, modules, output, png, rc):
    """Prints the table, writes the JSON and the plot; the exit status."""
    failed = [r for r in runs if r.result is None]
    for r in failed:
        print("guest_compare: run %s gave no result (rc=%s):" % (r.describe(), r.rc),
              file=sys.stderr)
        print("\n".join("    " + l for l in r.output[-15:]), file=sys.stderr)
    rows = best_rows(runs)
    rows.sort(key=lambda r: (guestlab.GUESTS.index(r["guest"]), r["vcpus"],
                             ORDER.index(r["mode"])))
    print("pvsmm: gettimeofday() on a Linux guest with clocksource=acpi_pm "
          "(%s KVM modules in L1, wall time, no icount)" % modules)
    print_table(rows)
    ratios = speedups(rows)
    print_speedups(ratios)
    os.makedirs(os.path.dirname(output), exist_ok=True)
    with open(output, "w") as f:
        json.dump({"lab": {"modules": modules, "icount": None,
                           "counting": guestlab.__doc__.split("\n\n", 1)[1].strip()},
                   "rows": rows, "speedups": ratios}, f, indent=2)
        f.write("\n")
    drawn = rows and plot(rows, png)
    print("results written to %s%s" % (
        os.path.relpath(output, TOP),
        " and " + os.path.relpath(png, TOP) if drawn else ""))
    return 1 if failed or rc == 125 else 0


if __name__ == "__main__":
    sys.exit(main())
