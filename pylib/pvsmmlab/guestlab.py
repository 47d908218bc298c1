# SPDX-License-Identifier: MIT
"""Real Linux guests (L2) in the nested KVM lab, under pvsmm-vmm and under
stock QEMU, in one lab boot; their output taken apart.

Used by the guest tests (tests/guest/check.py) and the comparison
(tools/guest_compare.py), so both count the same way.  What is counted,
and from where:

 - exits_per_call: KVM's VM-wide `exits` counter (L1 debugfs, every vCPU)
   read when the guest prints GUEST-MARK idle/begin/end.  The guest sleeps
   after each line; begin..end holds that sleep, the gettimeofday loop and
   the "end" line, idle..begin the same minus the loop, so the loop's own
   count is (end - begin) - (begin - idle).  Same method for every mode,
   QEMU included.  What remains in it is the guest's own work during the
   loop: its timer ticks (which read acpi_pm too), and, with several
   vCPUs, the other vCPUs' idle exits.
 - userspace_exits_per_call: under pvsmm-vmm, the VMM's own count of
   exits to userspace between its bench marker OUTs, which gtod-bench
   writes around the loop on CPU 0 (vCPU 0 only, exact, the markers left
   out).  Under QEMU, which has no such count, KVM's VM-wide io_exits +
   mmio_exits over the loop, corrected as above: every port or MMIO access
   the loop makes (the PM timer) goes to QEMU's userspace; KVM also counts
   in-kernel PIO in io_exits, which the loop does not touch.  io_exits
   counts reflected reads too (an IN intercept that KVM served), so under
   qemu-rom the reflections over the loop are taken off.
 - reflections_per_call: pvsmm-vmm's bench count (reflect-user: the VMM's
   own; reflect: KVM's pvsmm_reflections statistic); under QEMU, KVM's
   VM-wide pvsmm_reflections over the loop (0 for stock QEMU).
"""
import json
import os
import re
import sys

from . import lab

TOP = lab.TOP
# i386: Debian's 686-pae kernel (PAE paging); i686: its non-PAE 686
# flavour (2-level paging), the same initramfs (tests/guest/README.md).
GUESTS = ("amd64", "i386", "i686")
# L1's nested paging per guest unless told otherwise: off for the PAE
# guest, whose PDPTEs Debian's QEMU 7.2 (the lab's L0) marks accessed
# under NPT (tests/guest/README.md); on for the others.
NPT_DEFAULT = {"i386": False}
# "window": pvsmm-vmm --pmtimer=reflect --window (the opt-in IRETQ path).
PVSMM_MODES = ("user", "reflect-user", "kernel-emu", "reflect", "window")
# Stock QEMU as users run it today, and with pvsmm's option ROM and shim.
QEMU_KINDS = ("qemu", "qemu-rom")
PATCHED_ONLY = ("kernel-emu", "reflect", "window", "qemu-rom")
KINDS = PVSMM_MODES + QEMU_KINDS
# What a qemu-rom run needs in L1 (make optionrom shim).
QEMU_ROM_FILES = (("build/firmware/pvsmm.rom", "/pvsmm/pvsmm.rom"),
                  ("build/host/libpvsmm-preload.so", "/pvsmm/libpvsmm-preload.so"))


def is_32bit(guest):
    return guest in ("i386", "i686")


def parse_run_id(run_id):
    """(guest, kind, vcpus) of a run ID, GUEST-KIND-VCPUS[-rN], or None."""
    m = re.match(r"(%s)-(.+)-(\d+)(?:-r\d+)?$" % "|".join(GUESTS), run_id)
    return m and (m.group(1), m.group(2), int(m.group(3)))


class GuestRun:
    def __init__(self, guest, kind, vcpus, calls, mono, rep=0, npt=None):
        self.guest, self.kind, self.vcpus = guest, kind, vcpus
        self.calls, self.mono = calls, mono
        self.npt = NPT_DEFAULT.get(guest, True) if npt is None else npt
        self.id = "%s-%s-%d" % (guest, kind, vcpus)
        if rep:
            self.id += "-r%d" % rep
        self.rc = None
        self.output = []
        self.booted = False
        self.done_rc = None		# gtod-bench's status, from GUEST-DONE
        self.result = None		# GUEST-RESULT
        self.kvm = {}			# L1-KVM snapshots by tag
        self.stats = None		# PVSMM-STATS (pvsmm-vmm only)
        self.seconds = None
        self.timed_out = False

    def spec(self):
        return "%s %s %s %d %d %d %d" % (self.id, self.kind, self.guest,
                                         self.vcpus, self.calls, self.mono,
                                         self.npt)

    def describe(self):
        return "%s (%s guest, %s, %d vCPU%s%s)" % (
            self.id, self.guest, {"qemu": "stock QEMU",
                                  "qemu-rom": "stock QEMU + pvsmm.rom + shim",
                                  "window": "pvsmm-vmm --pmtimer=reflect --window"}.get(
                self.kind, "pvsmm-vmm --pmtimer=" + self.kind), self.vcpus,
            "s" if self.vcpus > 1 else "", "" if self.npt else ", L1 npt=0")

    def take(self, line):
        self.output.append(line)
        if line.startswith("GUEST-BOOTED"):
            self.booted = True
        m = re.match(r"L1-NPT ([YN1])", line)
        if m:
            self.npt = m.group(1) != "N"
        m = re.match(r"GUEST-DONE rc=(\d+)", line)
        if m:
            self.done_rc = int(m.group(1))
        m = re.match(r"L1-KVM (\S+)(.*)$", line)
        if m:
            self.kvm[m.group(1)] = {k: int(v) for k, v in
                                    re.findall(r"(\w+)=(\d+)", m.group(2))}
        m = re.match(r"L1-RUN seconds=(\d+)", line)
        if m:
            self.seconds = int(m.group(1))
        if line.startswith("L1-RUN timed out"):
            self.timed_out = True
        for tag, attr in (("GUEST-RESULT ", "result"), ("PVSMM-STATS ", "stats")):
            pos = line.find(tag)
            if pos >= 0:
                try:
                    setattr(self, attr, json.loads(line[pos + len(tag):]))
                except ValueError as err:
                    self.output.append("(unparsable %s: %s)" % (tag.strip(), err))

    # ---- counts --------------------------------------------------------

    def loop_count(self, name):
        """KVM's VM-wide count of `name` over the timed loop alone (see
        the module's comment), or None without the three snapshots."""
        try:
            idle, begin, end = (self.kvm[t][name] for t in ("idle", "begin", "end"))
        except KeyError:
            return None
        return (end - begin) - (begin - idle)

    def bench(self):
        return (self.stats or {}).get("bench") or {}

    def total(self):
        return (self.stats or {}).get("total") or {}

    def pm_port(self):
        return (self.stats or {}).get("pm_port", "0x608")

    def pm_port_exits_total(self):
        """Exits to userspace on the PM timer port over the whole VMM run."""
        return self.total().get("userspace_exits_by_port", {}).get(self.pm_port(), 0)

    def reflections_total(self):
        t = self.total()
        return (t.get("reflections") or 0) + \
            (t.get("kvm_stats", {}).get("pvsmm_reflections") or 0)


def per_call(value, calls):
    # + 0.0: a count that the idle-window correction puts a few exits below
    # zero rounds to 0.0, not -0.0.
    return None if value is None or not calls else round(value / calls, 3) + 0.0


def row_of(run):
    """One row of results/guest.json."""
    r = run.result or {}
    calls = r.get("calls") or run.calls
    bench = run.bench()
    if run.kind in QEMU_KINDS:
        # io_exits counts every IN/OUT intercept; a reflected read is one
        # that never reached QEMU.
        io, mmio = run.loop_count("io_exits"), run.loop_count("mmio_exits")
        refl = run.loop_count("pvsmm_reflections") or 0
        user = None if io is None else io - refl + (mmio or 0)
        user_src = ("KVM io_exits-pvsmm_reflections+mmio_exits over the loop "
                    "(VM-wide)")
    elif bench.get("vcpus_measured"):
        user = bench.get("userspace_exits")
        user_src = "pvsmm-vmm bench markers (vCPU 0)"
        refl = (bench.get("reflections") or 0) + \
            (bench.get("kvm_stats", {}).get("pvsmm_reflections") or 0)
    else:
        user, user_src, refl = None, "none (no bench markers seen)", None
    return {
        "guest": run.guest,
        "mode": run.kind,
        "vcpus": run.vcpus,
        "calls": calls,
        "ns_per_gettimeofday": r.get("ns_per_gettimeofday"),
        "cycles_per_call": r.get("cycles_per_call"),
        "exits_per_call": per_call(run.loop_count("exits"), calls),
        "userspace_exits_per_call": per_call(user, calls),
        "reflections_per_call": per_call(refl, calls),
        "userspace_exits_source": user_src,
        "clocksource": r.get("clocksource"),
        "clocksource_stable": r.get("clocksource_stable"),
        "backwards_steps": r.get("backwards_steps"),
        "pm_port_userspace_exits_whole_run":
            run.pm_port_exits_total() if run.stats else None,
        "reflections_whole_run": run.reflections_total() if run.stats else None,
        "run_seconds": run.seconds,
        "l1_npt": run.npt,
    }


# Configurations this lab cannot run at all: (guest, kind) -> why.
BUSY_TR = ("stock QEMU in L1 writes TR back busy and Debian's QEMU 7.2 "
           "aborts at the guest's first user-mode exception "
           "(tests/guest/README.md; the lab's own QEMU, make qemu-lab, runs it)")
WINDOW_64 = "the window path is for 64-bit guests only (PML4 slot 271)"
LAB_CANNOT = {(g, k): why for g in GUESTS if is_32bit(g)
              for k, why in (("qemu", BUSY_TR), ("qemu-rom", BUSY_TR),
                             ("window", WINDOW_64))}


def lab_cannot(lab_qemu=False):
    """LAB_CANNOT for this lab: on the lab's own QEMU (lab.use_lab_qemu(),
    with its fixes for 32-bit guests), stock QEMU runs 32-bit guests too."""
    if not lab_qemu:
        return dict(LAB_CANNOT)
    return {k: v for k, v in LAB_CANNOT.items() if v is not BUSY_TR}


def qemu_rom_built():
    return all(os.path.exists(os.path.join(TOP, src)) for src, _ in QEMU_ROM_FILES)


def plan(guests, kinds, vcpus_list, calls, mono, repeat=1, cannot=None,
         npt=None):
    """The runs, all configurations once, then all again (`repeat` times),
    so that a burst of load on the lab's host spreads over the modes; the
    guests in the order given.  npt: {guest: True/False}, L1's nested
    paging for that guest where NPT_DEFAULT's will not do."""
    cannot = LAB_CANNOT if cannot is None else cannot
    npt = npt or {}
    return [GuestRun(g, k, v, calls, mono, rep if repeat > 1 else 0,
                     npt=npt.get(g))
            for g in guests for rep in range(1, repeat + 1)
            for v in vcpus_list for k in kinds if (g, k) not in cannot]


def run_guests(runs, modules="stock", run_timeout=300, log=None, icount=False):
    """Boots the lab once and performs every run; fills in each GuestRun.
    Returns the lab's status (125: the lab itself failed).  With icount,
    L0 counts time in instructions (one per ns), so the runs' times are
    deterministic instruction counts rather than wall time."""
    options = ["--with-qemu",
               "--add", os.path.join(TOP, "tests", "guest", "l1-runs.sh") + ":/pvsmm/l1-runs.sh"]
    for g in sorted({r.guest for r in runs}):
        for f in ("vmlinuz", "initrd.gz"):
            src = os.path.join(TOP, "build", "guest", g, f)
            options += ["--add", "%s:/guest/%s/%s" % (src, g, f)]
    if any(r.kind == "qemu-rom" for r in runs):
        for src, dest in QEMU_ROM_FILES:
            options += ["--add", "%s:%s" % (os.path.join(TOP, src), dest)]
    inner = "GUEST_TIMEOUT=%d sh /pvsmm/l1-runs.sh %s" % (
        run_timeout, " ".join("'%s'" % r.spec() for r in runs))
    # Each run is bounded inside L1; the lab's own limit covers them all
    # plus L1's boot.
    total = 120 + sum(run_timeout + 10 for _ in runs)
    proc = lab.boot(inner, modules=modules, icount=icount, timeout=total,
                    log=log, options=options)
    by_id = {r.id: r for r in runs}
    for run_id, line in lab.frames(proc.stdout):
        run = by_id.get(run_id)
        if run is None:
            continue
        if isinstance(line, int):
            run.rc = line
        else:
            run.take(line)
    if proc.returncode == 125 or any(r.rc is None for r in runs):
        sys.stderr.write(proc.stderr)
    return proc.returncode


def patched_built():
    return os.path.exists(os.path.join(TOP, "build/kvm/patched/kvm.ko"))


def vmm_supports_kernel():
    """pvsmm-vmm boots Linux (--kernel) only from some version on."""
    import subprocess
    vmm = os.path.join(TOP, "build/host/pvsmm-vmm")
    if not os.access(vmm, os.X_OK):
        return False
    out = subprocess.run([vmm, "--help"], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True).stdout
    return "--kernel" in out
