#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Lab tests: the firmware self-test under pvsmm-vmm in the nested KVM lab.

One deterministic (icount) boot of the lab per module kind, on kvm-amd
(--cpu amd, QEMU) or kvm-intel (--cpu intel, Bochs).  The boot first
checks the lab's own CPU: l0-check (tests/lab/l0-check.c) must pass, or
an L0 that leaks NMI blocking between VMCSs, that keeps L1's interrupts
from a spinning L2, or that delivers an L2 interrupt while L2 has IF=0,
would fail the pvsmm checks for reasons not theirs.
The self-test runs in each of its guest paging modes (long, PAE, 2-level:
the handler's 64-bit and 32-bit entries) with 1 and 4 vCPUs, and the
reflecting modes once more with --window (the IRETQ path, long mode only).
Every run must pass the guest's own checks (values within one tick of
kvmclock, monotonic modulo 2^24), and the exit accounting must be exact: in `user` mode every
PM timer read is one userspace exit; in `reflect-user` mode the handler ran
exactly once per read, every read was reflected, on the private path with
two userspace exits per read (the IN, the handler's OUT), on the window
path with one; and a fault in the handler (--fault-test, in each entry) must
come back as the stubs' report, the read served in userspace and the
registration disabled.
"""
import argparse
import os
import sys

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "pylib"))
from pvsmmlab import lab  # noqa: E402
from pvsmmlab.checker import Checker  # noqa: E402

PM_PORT = "0x608"
FAULT_AT = 50		# --fault-test: vCPU 0's 50th reflection traps
STATUS_DISABLED = 9	# PVSMM_STATUS_DISABLED (abi.h)


def port_exits(counters):
    return counters.get("userspace_exits_by_port", {}).get(PM_PORT, 0)


def guest_mode(run):
    for o in run.options:
        if o.startswith("--guest-mode="):
            return o.split("=", 1)[1]
    return "long"


def check_run(c, run):
    if not c.check(run, "finished with status 0", run.rc == 0, "rc=%s" % run.rc):
        print("\n".join("    " + l for l in run.output[-25:]))
        return
    st, stats = run.selftest, run.stats
    if not c.check(run, "self-test line", st is not None) or \
       not c.check(run, "PVSMM-STATS line", stats is not None):
        return
    total_reads = run.vcpus * run.reads
    total_checked = run.vcpus * run.check_reads
    all_reads = total_reads + total_checked
    c.check(run, "self-test PASS", st.get("status") == "PASS", str(st))
    c.check(run, "no value off kvmclock", st.get("check_failures") == 0, str(st))
    c.check(run, "monotonic", st.get("mono_failures") == 0, str(st))
    c.check(run, "all vCPUs ran", st.get("vcpus") == run.vcpus, str(st))
    c.check(run, "bench reads", st.get("reads") == total_reads, str(st))
    c.check(run, "checked reads", st.get("check_reads") == total_checked, str(st))
    bench, total = stats["bench"], stats["total"]
    window = "--window" in run.options
    c.check(run, "VMM saw the bench reads", bench.get("reads") == total_reads,
            "bench.reads=%s" % bench.get("reads"))
    c.check(run, "guest mode " + guest_mode(run),
            stats.get("guest_mode") == guest_mode(run),
            "guest_mode=%s" % stats.get("guest_mode"))
    if run.mode == "user":
        c.check(run, "not registered", st.get("registered") == 0, str(st))
        c.check(run, "handler never ran", st.get("handler_runs") == 0, str(st))
        c.check(run, "one userspace exit per bench read",
                port_exits(bench) == total_reads, "got %s" % port_exits(bench))
        c.check(run, "one userspace exit per read",
                port_exits(total) == all_reads, "got %s" % port_exits(total))
        c.check(run, "no reflections", total.get("reflections") == 0)
    elif run.mode == "kernel-emu":
        kstats = total.get("kvm_stats", {})
        c.check(run, "not registered", st.get("registered") == 0, str(st))
        c.check(run, "no userspace exit for the PM port", port_exits(total) == 0,
                "got %s" % port_exits(total))
        c.check(run, "every read served in the kernel",
                kstats.get("pvsmm_pmtimer_reads") == all_reads,
                "pvsmm_pmtimer_reads=%s reads=%d" % (kstats.get("pvsmm_pmtimer_reads"),
                                                     all_reads))
    elif run.mode == "reflect":
        kstats = total.get("kvm_stats", {})
        c.check(run, "registered", st.get("registered") == 1, str(st))
        c.check(run, "no userspace exit for the PM port", port_exits(total) == 0,
                "got %s" % port_exits(total))
        c.check(run, "handler ran exactly once per read",
                st.get("handler_runs") == all_reads,
                "handler_runs=%s reads=%d" % (st.get("handler_runs"), all_reads))
        c.check(run, "KVM reflected every read",
                kstats.get("pvsmm_reflections") == all_reads,
                "pvsmm_reflections=%s" % kstats.get("pvsmm_reflections"))
        c.check(run, "no fallback", kstats.get("pvsmm_fallbacks") == 0,
                "pvsmm_fallbacks=%s" % kstats.get("pvsmm_fallbacks"))
        returns = "pvsmm_iret_returns" if window else "pvsmm_exit_returns"
        other = "pvsmm_exit_returns" if window else "pvsmm_iret_returns"
        c.check(run, "every return by " + returns, kstats.get(returns) == all_reads,
                "%s=%s" % (returns, kstats.get(returns)))
        c.check(run, "no return by " + other, kstats.get(other) == 0,
                "%s=%s" % (other, kstats.get(other)))
    elif run.mode == "reflect-user" and any(o.startswith("--fault-test")
                                            for o in run.options):
        # The handler's first instruction single-steps into its private
        # IDT's #DB stub, which reports the fault: the VMM serves that read
        # and every later one in userspace and disables the registration.
        served = FAULT_AT - 1
        c.check(run, "one handler failure", total.get("handler_failures") == 1,
                "handler_failures=%s" % total.get("handler_failures"))
        c.check(run, "registration disabled",
                stats.get("registration", {}).get("disabled") == 1 and
                stats.get("registration", {}).get("valid") is False,
                str(stats.get("registration")))
        c.check(run, "the guest sees PVSMM_STATUS_DISABLED",
                st.get("desc_status") == STATUS_DISABLED, str(st))
        c.check(run, "reads before the fault returned by the handler",
                total.get("exit_returns") == served,
                "exit_returns=%s" % total.get("exit_returns"))
        c.check(run, "the rest served in userspace",
                total.get("pm_user_reads") == all_reads - served,
                "pm_user_reads=%s" % total.get("pm_user_reads"))
    elif run.mode == "reflect-user":
        c.check(run, "registered", st.get("registered") == 1, str(st))
        c.check(run, "handler ran exactly once per read",
                st.get("handler_runs") == all_reads,
                "handler_runs=%s reads=%d" % (st.get("handler_runs"), all_reads))
        c.check(run, "every read reflected", total.get("reflections") == all_reads,
                "reflections=%s" % total.get("reflections"))
        c.check(run, "no fallback", total.get("fallbacks") == 0,
                "fallbacks=%s %s" % (total.get("fallbacks"),
                                     total.get("fallback_reasons")))
        c.check(run, "no handler failure", total.get("handler_failures") == 0,
                "handler_failures=%s" % total.get("handler_failures"))
        ret_port = bench.get("userspace_exits_by_port", {}).get("0xef0", 0)
        if window:
            c.check(run, "every return by iretq", total.get("iret_returns") == all_reads,
                    "iret_returns=%s" % total.get("iret_returns"))
            c.check(run, "no private-path return", total.get("exit_returns") == 0)
            c.check(run, "every window handler finished",
                    total.get("window_unfinished") == 0)
            c.check(run, "one userspace exit per bench read",
                    bench.get("userspace_exits") == total_reads,
                    "userspace_exits=%s" % bench.get("userspace_exits"))
        else:
            c.check(run, "every return by the private path",
                    total.get("exit_returns") == all_reads,
                    "exit_returns=%s" % total.get("exit_returns"))
            c.check(run, "no iretq return", total.get("iret_returns") == 0)
            c.check(run, "one OUT to the return port per bench read",
                    ret_port == total_reads, "got %s" % ret_port)
            c.check(run, "two userspace exits per bench read",
                    bench.get("userspace_exits") == 2 * total_reads,
                    "userspace_exits=%s" % bench.get("userspace_exits"))
            c.check(run, "the window never claimed",
                    stats.get("registration", {}).get("window_claims") == 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--modules", default="stock", choices=["stock", "patched"])
    ap.add_argument("--reads", type=int, default=None,
                    help="bench reads per run, split over its vCPUs "
                         "(default 20000 stock, 100000 patched)")
    ap.add_argument("--cpu", default="amd", choices=["amd", "intel"],
                    help="L1's CPU: amd (QEMU, kvm-amd) or intel (Bochs, kvm-intel)")
    ap.add_argument("--kvm-param", action="append", default=[], metavar="P=V",
                    help="a kvm-amd/kvm-intel parameter (repeatable), e.g. ept=0")
    ap.add_argument("--timeout", type=int, default=1200,
                    help="wall-clock limit of the lab boot in seconds")
    args = ap.parse_args()
    if args.reads is not None and args.reads < 400:
        ap.error("--reads must be at least 400 (4 vCPUs x 100)")
    n = args.reads or (100000 if args.modules == "patched" else 20000)
    k = max(1, n // 100)
    modes = ["user", "reflect-user"]
    if args.modules == "patched":
        # Patched KVM: a VM that enables nothing must behave as stock
        # (user), and the two in-kernel modes must serve every read.
        modes = ["user", "kernel-emu", "reflect"]
    runs = []
    for mode in modes:
        for gm in ("long", "pae", "32"):
            for vcpus in (1, 4):
                runs.append(lab.Run("%s-%s-%d" % (mode, gm, vcpus), mode, vcpus,
                                    n // vcpus, k // vcpus,
                                    ["--guest-mode=%s" % gm]))
    reflect = modes[-1]
    for vcpus in (1, 4):
        runs.append(lab.Run("%s-window-%d" % (reflect, vcpus), reflect, vcpus,
                            n // vcpus, k // vcpus, ["--window"]))
    if reflect == "reflect-user":
        # A fault in the handler, in each entry: the stubs' report.
        for gm in ("long", "pae", "32"):
            runs.append(lab.Run("reflect-user-fault-%s" % gm, reflect, 1,
                                n // 10, k // 10,
                                ["--guest-mode=%s" % gm,
                                 "--fault-test=%d" % FAULT_AT]))
    l0_check = os.path.join(lab.TOP, "build/lab/l0-check")
    if not os.access(l0_check, os.X_OK):
        print("check: %s missing: run 'make lab-tools'" % l0_check)
        return 2
    others = {}
    rc, _ = lab.run_lab(runs, modules=args.modules, icount=True,
                        timeout=args.timeout, cpu=args.cpu,
                        kvm_params=args.kvm_param,
                        options=["--add", l0_check + ":/pvsmm/l0-check"],
                        prologue=lab.framed("l0-check", "l0-check"),
                        others=others)
    c = Checker()
    what = "lab %s%s" % (args.cpu, "".join(" " + p for p in args.kvm_param))
    if rc == 125:
        c.fail("the lab itself failed (see build/lab/last-console.log)")
    l0 = others.get("l0-check", {"rc": None, "output": []})
    if c.check(what, "L0 sound (l0-check: L2 spin exits, a masked interrupt waits, NMI blocking per VMCS)",
               l0["rc"] == 0, "l0-check rc=%s" % l0["rc"]):
        print("ok   %s: L0 sound (l0-check)" % what)
    else:
        print("\n".join("    " + l for l in l0["output"]))
    for run in runs:
        failed_before = c.failed
        check_run(c, run)
        if c.failed == failed_before:
            print("ok   %s" % run.describe())
    print("(%s, %s modules)" % (what, args.modules))
    return c.report("lab")


if __name__ == "__main__":
    sys.exit(main())
