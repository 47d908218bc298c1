#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""pvsmm the way KVM users run it: Debian's stock QEMU in the nested lab.

One lab boot with the patched KVM modules and Debian's qemu-system-x86_64
in L1 (run-in-lab.sh --with-qemu).  L1 boots Debian's kernel as L2 with
clocksource=acpi_pm and a tiny initramfs (tests/qemu/guest/), once per
mode (tests/qemu/l1-run.sh):

  stock    QEMU as distributed: no shim, no ROM -- the reference
  seabios  SeaBIOS + pvsmm.rom (-option-rom) on q35, the shim enabling
           reflection (LD_PRELOAD=libpvsmm-preload.so PVSMM_PORTS=0x608);
           L2 boots GRUB from a disk (tests/qemu/make-iso.sh), as in
           seabios-*; the accel modes use -kernel/-initrd
  seabios-pc  seabios on the pc machine (i440FX): SeaBIOS puts the PM
           timer at 0x608 there too, found by the ROM and the guest in the
           FADT
  ovmf-driver  OVMF + pvsmm.efi and the shim, no Linux: the UEFI shell
           loads the driver, then busy-waits 100 ms (stall: OVMF's own PM
           timer reads) between two marks, then powers off
  ovmf     OVMF + pvsmm.efi, the shim enabling reflection, then Linux
  ovmf-rom  the same with nothing in the guest: OVMF loads the driver from
           pvsmm-efi.rom, the PCI option ROM of a virtio-rng device
           (romfile=), no ESP, startup.nsh or Driver####; Linux from
           -kernel
  ovmf-pc  ovmf-rom on the pc machine, where OVMF puts the PM timer at
           0xb008
  accel    QEMU built with host/qemu/*.patch (make qemu-pvsmm), run as
           libvirt runs it (host/libvirt/pvsmm-accel.xml): through the
           wrapper qemu-pvsmm, which turns -accel kvm into -accel
           kvm,pvsmm=on; SeaBIOS + pvsmm.rom, no shim doing anything but
           counting.  The migration modes' sources name -accel
           kvm,pvsmm=on themselves
  accel-s3  accel on the pc machine, with an S3 suspend and resume (RTC
           wakeup) before the measurement: no firmware runs at the
           resume, so QEMU must write the registration back (0 exits,
           reflections after it).  Not q35: SeaBIOS's resume does not
           restore the ICH9 PM base that QEMU's wakeup reset clears
  accel-s3-migrate  accel-s3, but migrated while suspended: the source
           saves L2 once suspended, the destination loads it suspended
           and HMP system_wakeup (virsh dompmwakeup) wakes it there; the
           registration the destination loaded must serve the resumed guest
  accel-kexec  accel, then L2's Linux boots itself again by kexec
           (kexec_file_load, tests/qemu/guest/kexec.c): no firmware runs,
           and the second kernel's reads must be reflected as the first's;
           every check below is made on the second kernel's part
  accel-migrate  the same, migrated (HMP migrate to a file, -incoming)
           right after the ROM registered: the restored VM must go on
           reflecting without any firmware running again
  accel-to-stock, accel-to-off  accel's registered guest migrated to
           Debian's QEMU, or to the patched one without pvsmm=on: the
           destination must refuse it (accel-to-off: saying why)
  unregistered-to-stock  the patched QEMU with pvsmm=on, no ROM: nothing
           registered, so Debian's QEMU takes the migrated guest.  It is
           migrated while its Linux runs on acpi_pm, and L2's clockstep
           (tests/qemu/guest/clockstep.c) watches CLOCK_MONOTONIC against
           the TSC meanwhile: the PM timer must not step
  stock-to-accel  the other way, Debian's QEMU to the patched one with
           pvsmm=on, in the same window
  seabios-s3  accel-s3 under Debian's QEMU, the shim enabling reflection:
           the shim must keep the registration through the wakeup's
           reset, which it would clear at any other reset
  seabios-hotplug  seabios, a second vCPU hot-plugged (HMP device_add)
           right after the ROM registered: QEMU loads the new vCPU's
           whole state, and the shim must keep the VM-wide registration;
           HMP "info stats vcpu" must list pvsmm's counters
  seabios-migrate  seabios migrated as accel-migrate: stock QEMU does not
           know the registration MSR, so the restored guest is not
           registered; its PM timer reads exit, and the shim serves every
           one of them from kvmclock (no reflection, no QEMU device),
           the kvmclock QEMU migrated, not stepped to QEMU's clock
  seabios-apparmor  seabios as Debian's libvirt runs pvsmm-shim.xml:
           confined by the AppArmor profile libvirt's virt-aa-helper
           makes for the domain (tests/qemu/make-aa-profile.sh), loaded
           in L1 with Debian's abstractions and the operator's rules
           (host/libvirt/apparmor-libvirt-qemu) in the local one; the
           shim and ROM at their installed paths.  Checked as seabios,
           and: the profile confined QEMU, nothing denied
  apparmor-denied  the same profile without the operator's rules: what
           the operator sees, checked line by line (ld.so ignores the
           shim, QEMU cannot open the ROM, AppArmor's DENIED audit lines
           for both), and the guest still runs, on acpi_pm, unaccelerated
  apparmor-noshim  the operator's rules less the shim's: ld.so ignores
           the shim, the ROM loads, finds no CPUID leaf and says so on the
           guest's console; one DENIED line (the shim)
With the OVMF modes (all but --no-ovmf), L1 runs on the lab QEMU of "make
qemu-lab" instead of Debian's: Debian's QEMU 7.2 TCG aborts on a BQL
assertion (tcg_handle_interrupt) when L2 writes CR8 with a virtual
interrupt pending, which L2 under OVMF does, every time its Linux starts
(tests/lab/qemu/*.patch fixes that, nothing else).

Checked per pvsmm mode: the firmware registered, acpi_pm stays the
clocksource without a watchdog complaint, the gettimeofday loop causes 0
userspace exits for the PM timer port (the shim's count between the
guest's two marks) and one reflection or more per call, no fallback, the
reflected values agree with a read that exits to userspace (pmprobe.ko:
IN, INS, IN; the INS is QEMU's device's under stock QEMU and accel, the
shim's from kvmclock under the shim), and under the shim every string IN
was served from kvmclock.  The cost per call is reported, not checked (it is wall
time in an emulator).  Prints "qemu: N passed, M failed"; writes
build/qemu/results.json.
"""
import argparse
import json
import os
import re
import subprocess
import sys

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# Linux's clocksource watchdog margin (WATCHDOG_MAX_SKEW, 6.1): two clocks
# that differ by no more over an interval agree.
WATCHDOG_SKEW_NS = 100 * 1000
# What a migration may do to the guest's time in the window modes.  A PM
# timer that changes clocks steps it by the distance between kvmclock and
# QEMU_CLOCK_VIRTUAL (about the time between creating the VM and starting
# it: 149 to 364 ms in the lab), which pmprobe measures in the guest.
# QEMU's own migration moves CLOCK_MONOTONIC against the TSC a little too
# (it stops the virtual clock, then pauses the vCPUs and reads the TSC it
# migrates): 4 to 33 ms in the lab, more the busier L1 is.  So the offset
# must stay within half the distance, and the distance must be large
# enough for that to mean something.
CLOCKS_APART_MIN_NS = 100 * 1000 * 1000
# The modes migrated while L2's clockstep watches its time.
WINDOW_MODES = ("unregistered-to-stock", "stock-to-accel")
sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.join(TOP, "pylib"))
from pvsmmlab.checker import Checker  # noqa: E402
from pvsmmlab.pmtimer import TICK_NS  # noqa: E402
KVER = subprocess.run([os.path.join(TOP, "tools", "kver.sh")], check=True,
                      capture_output=True, text=True).stdout.strip()


def patched_qemu(mode):
    """The modes that run QEMU with host/qemu/*.patch (make qemu-pvsmm)."""
    return mode.startswith("accel") or mode in WINDOW_MODES


def build(modes):
    """What the modes need: the patched QEMU only for accel*, the UEFI
    driver and the lab's QEMU only for ovmf*."""
    ovmf = any(m.startswith("ovmf") for m in modes)
    accel = any(patched_qemu(m) for m in modes)
    subprocess.run(["make", "-s", "-C", TOP, "optionrom", "shim"] +
                   (["qemu-pvsmm"] if accel else []) +
                   (["uefi", "qemu-lab"] if ovmf else []), check=True)
    subprocess.run(["sh", os.path.join(TOP, "tests/qemu/build-l2.sh")],
                   check=True, stderr=subprocess.DEVNULL)
    if any(apparmor(m) for m in modes):
        subprocess.run([os.path.join(TOP, "tests/qemu/make-aa-profile.sh")],
                       check=True)


def apparmor(mode):
    """The modes confined by libvirt's AppArmor profile."""
    return mode in ("seabios-apparmor", "apparmor-denied", "apparmor-noshim")


def run_lab(modes, calls, pairs, timeout):
    adds = [("/boot/vmlinuz-%s" % KVER, "/pvsmm/vmlinuz"),
            ("build/qemu/l2.cpio.gz", "/pvsmm/l2.cpio.gz"),
            ("build/firmware/pvsmm.rom", "/pvsmm/pvsmm.rom"),
            ("build/qemu/l2.iso", "/pvsmm/l2.iso"),
            ("build/host/libpvsmm-preload.so", "/pvsmm/libpvsmm-preload.so"),
            ("tests/qemu/l1-run.sh", "/pvsmm/l1-run.sh")]
    if "accel-kexec" in modes:
        adds += [("build/qemu/l2-kexec.cpio.gz", "/pvsmm/l2-kexec.cpio.gz")]
    if any(m.startswith("ovmf") for m in modes):
        adds += [("/usr/share/OVMF/OVMF_CODE.fd", "/pvsmm/OVMF_CODE.fd"),
                 ("/usr/share/OVMF/OVMF_VARS.fd", "/pvsmm/OVMF_VARS.fd"),
                 ("build/firmware/pvsmm-efi.rom", "/pvsmm/pvsmm-efi.rom"),
                 ("build/qemu/esp", "/pvsmm/esp"),
                 ("build/qemu/esp-driver", "/pvsmm/esp-driver")]
    if any(apparmor(m) for m in modes):
        # The policy tree as libvirt leaves it, the operator's rules, and
        # pvsmm's files where "make install" puts them.
        aa = "build/qemu/apparmor"
        adds += [(aa + "/etc/apparmor.d", "/etc/apparmor.d"),
                 (aa + "/profile", "/pvsmm/apparmor/profile"),
                 ("host/libvirt/apparmor-libvirt-qemu", "/pvsmm/apparmor/rules"),
                 ("build/host/libpvsmm-preload.so",
                  "/usr/local/lib/pvsmm/libpvsmm-preload.so"),
                 ("build/firmware/pvsmm.rom", "/usr/local/share/pvsmm/pvsmm.rom"),
                 # Debian's parser settings: they pin the policy features
                 # to the package's list.
                 (aa + "/root/etc/apparmor/parser.conf", "/etc/apparmor/parser.conf"),
                 (aa + "/root/usr/share/apparmor-features",
                  "/usr/share/apparmor-features")]
    cmd = [os.path.join(TOP, "tests/lab/run-in-lab.sh"), "--with-qemu",
           "--modules", "patched", "--timeout", str(timeout),
           "--log", os.path.join(TOP, "build/qemu/lab-console.log")]
    for src, dest in adds:
        cmd += ["--add", "%s:%s" % (os.path.join(TOP, src), dest)]
    if any(patched_qemu(m) for m in modes):
        cmd += ["--add-binary", "%s:/pvsmm/qemu-pvsmm/qemu-system-x86_64"
                % os.path.join(TOP, "build/qemu-pvsmm/qemu-system-x86_64"),
                "--add", "%s:/pvsmm/qemu-pvsmm/qemu-pvsmm"
                % os.path.join(TOP, "host/libvirt/qemu-pvsmm")]
    if any(apparmor(m) for m in modes):
        cmd += ["--add-binary", "%s:/pvsmm/apparmor/apparmor_parser"
                % os.path.join(TOP, "build/qemu/apparmor/apparmor_parser")]
    cmd += ["--", "CALLS=%d PAIRS=%d sh /pvsmm/l1-run.sh %s"
            % (calls, pairs, " ".join(modes))]
    env = dict(os.environ)
    if any(m.startswith("ovmf") for m in modes):
        env["PVSMM_LAB_QEMU"] = os.path.join(TOP, "build/qemu-lab/qemu-system-x86_64")
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, errors="replace", cwd=TOP, env=env)
    with open(os.path.join(TOP, "build/qemu/lab.out"), "w") as f:
        f.write(proc.stdout)
    return proc.returncode, proc.stdout


def split_runs(text):
    runs, cur = {}, None
    for line in text.splitlines():
        m = re.match(r"=== QEMU-RUN (\S+)$", line)
        if m:
            cur = m.group(1)
            runs[cur] = {"lines": [], "rc": None}
            continue
        m = re.match(r"=== QEMU-END (\S+) rc=(\d+)$", line)
        if m and cur:
            runs[cur]["rc"] = int(m.group(2))
            cur = None
            continue
        if cur:
            runs[cur]["lines"].append(line)
    return runs


def parse(run):
    out = {"marks": {}, "clocksource": {}, "warnings": []}
    for line in run["lines"]:
        m = re.search(r"MARK (\d+) (.*)$", line)
        if m:
            out["marks"][int(m.group(1))] = {
                k: int(v) for k, v in (w.split("=") for w in m.group(2).split())}
        m = re.search(r"(PMCHECK|PMPROBE|CLOCKSTEP) (\{.*\})$", line)
        if m and m.group(1).lower() not in out:
            out[m.group(1).lower()] = json.loads(m.group(2))
        m = re.search(r"L2-CLOCKSOURCE (before|after) (\S+)", line)
        if m:
            out["clocksource"][m.group(1)] = m.group(2)
        m = re.search(r"Long readout interval, skipping watchdog check: "
                      r"cs_nsec: (\d+) wd_nsec: (\d+)", line)
        if m and abs(int(m.group(1)) - int(m.group(2))) <= WATCHDOG_SKEW_NS:
            # The watchdog ran late (L2 starved of CPU in the lab) and
            # skipped one check, but the two clocks agree over the long
            # interval: no verdict on the PM timer's time.
            out["late_watchdog"] = out.get("late_watchdog", 0) + 1
        elif "L2-CLOCKSOURCE-WARNING" in line:
            out["warnings"].append(line)
        m = re.search(r"kvmclock aligned .* now (-?\d+) ns", line)
        if m:
            out["aligned_ns"] = int(m.group(1))
        m = re.search(r"L2-S3 (resumed|failed)", line)
        if m:
            out["s3"] = m.group(1)
        out["done"] = out.get("done", False) or "L2-DONE" in line
        if re.search(r"pvsmm: registered", line):
            out["registered"] = line.strip()
        if "KVM_CAP_PVSMM_REFLECT enabled" in line:
            out["cap"] = True
        if "CPUID leaf 0x" in line:
            out["leaf"] = True
        m = re.search(r"exit: (\d+) reads of reflected ports reached userspace, "
                      r"(\d+) of them served by the shim", line)
        if m:
            out["shim_exit"] = {"user": int(m.group(1)), "served": int(m.group(2))}
        if "incoming guest state: kvmclock is the guest's" in line:
            out["incoming"] = True
        m = re.search(r"^HMP\s+(pvsmm_\w+) \([^)]*\): (\S+)", line)
        if m:
            out.setdefault("hmp_stats", []).append(m.group(1))
            out.setdefault("hmp_values", {})[m.group(1)] = m.group(2)
        m = re.search(r"vCPU (\d+): whole-vCPU load .*registration kept", line)
        if m:
            out.setdefault("kept", []).append(int(m.group(1)))
    return out


def delta(marks, name):
    if 1 not in marks or 2 not in marks:
        return None
    return marks[2].get(name, 0) - marks[1].get(name, 0)


def check_driver(c, mode, r):
    """pvsmm.efi under OVMF: it registers, and OVMF's own PM timer reads
    in the UEFI shell (stall) are reflected, none reaching QEMU."""
    c.check(mode, "driver registered", "registered" in r)
    c.check(mode, "shim enabled KVM_CAP_PVSMM_REFLECT", r.get("cap"))
    c.check(mode, "shim added the CPUID leaf", r.get("leaf"))
    marks = r["marks"]
    refl = delta(marks, "pvsmm_reflections")
    c.check(mode, "both marks seen", refl is not None, str(marks))
    if refl is None:
        return
    c.check(mode, "0 userspace exits for the PM port during stall",
            delta(marks, "pm_user_exits") == 0, str(marks))
    c.check(mode, "OVMF's reads reflected", refl > 0, str(refl))
    c.check(mode, "no fallback to userspace", delta(marks, "pvsmm_fallbacks") == 0,
            str(delta(marks, "pvsmm_fallbacks")))
    c.check(mode, "no handler fault", delta(marks, "pvsmm_handler_faults") == 0,
            str(delta(marks, "pvsmm_handler_faults")))


# pvsmm's files where "make install" puts them, as pvsmm-shim.xml names them.
SHIM_PATH = "/usr/local/lib/pvsmm/libpvsmm-preload.so"
ROM_PATH = "/usr/local/share/pvsmm/pvsmm.rom"


def check_confined(c, mode, run):
    """The apparmor modes: L1's AppArmor took the domain's profile and
    QEMU ran under it.  Returns the profile's name and the run's AppArmor
    DENIED audit lines."""
    lines = run["lines"]
    tagged = lambda tag: [l[len(tag) + 1:] for l in lines if l.startswith(tag + " ")]
    c.check(mode, "AppArmor enabled in L1", tagged("AA-ENABLED") == ["Y"],
            str(tagged("AA-ENABLED")))
    c.check(mode, "apparmor_parser loaded the profile without a word",
            not tagged("AA-PARSER"), str(tagged("AA-PARSER")))
    loaded = tagged("AA-LOADED")
    profile = loaded[0] if loaded else None
    c.check(mode, "the domain's profile (virt-aa-helper's) is loaded, enforcing",
            profile is not None and re.match(r"libvirt-[0-9a-f-]{36}$", profile),
            str(loaded))
    c.check(mode, "QEMU ran confined by it",
            tagged("AA-LABEL") == ["%s (enforce)" % profile], str(tagged("AA-LABEL")))
    denied = [l for l in tagged("AA-DMESG") if 'apparmor="DENIED"' in l]
    return profile, denied


def denied_line(profile, operation, name, mask):
    """What an AppArmor DENIED audit line of QEMU says, in the order the
    kernel writes its fields."""
    return re.compile(
        r'apparmor="DENIED" operation="%s" profile="%s" name="%s" pid=\d+ '
        r'comm="qemu-system-x86" requested_mask="%s" denied_mask="%s" '
        r'fsuid=0 ouid=0' % (operation, re.escape(profile), re.escape(name),
                             mask, mask))


def check_denied(c, mode, run):
    """apparmor-denied: the domain's profile without the operator's rules.
    What the operator sees, exactly: ld.so ignores the shim and QEMU
    cannot open the ROM (both on QEMU's stderr, libvirt's domain log), and
    AppArmor's audit says why (the kernel log); and the guest still runs,
    on acpi_pm, with neither.  apparmor-noshim: only the shim's rule
    missing, so the ROM loads, and says on the guest's console that the
    host offers no pvsmm."""
    rom = mode == "apparmor-noshim"
    profile, denied = check_confined(c, mode, run)
    lines = run["lines"]
    c.check(mode, "ld.so: the shim cannot be preloaded, ignored",
            "ERROR: ld.so: object '%s' from LD_PRELOAD cannot be preloaded "
            "(cannot open shared object file): ignored." % SHIM_PATH in lines)
    rom_error = "Could not open option rom '%s': Permission denied" % ROM_PATH
    c.check(mode, "QEMU: the ROM loaded" if rom else "QEMU: the ROM cannot be opened",
            (rom_error in lines) != rom)
    c.check(mode, "no shim line", not [l for l in lines if "pvsmm-preload:" in l])
    rom_lines = [l for l in lines if re.search(r"^pvsmm: ", l)]
    if rom:
        c.check(mode, "the ROM says the host offers no pvsmm",
                rom_lines == ["pvsmm: not offered by the host (no CPUID leaf), "
                              "ROM idle"], str(rom_lines))
    else:
        c.check(mode, "no ROM line in the guest's console", not rom_lines,
                str(rom_lines))
    want = [denied_line(profile or "", "open", SHIM_PATH, "r")]
    if not rom:
        want.append(denied_line(profile or "", "open", ROM_PATH, "r"))
    c.check(mode, "AppArmor denied the shim%s, nothing else" %
            ("" if rom else " and the ROM"),
            len(denied) == len(want) and all(w.search(d) for w, d in zip(want, denied)),
            str(denied))
    r = parse(run)
    c.check(mode, "guest finished", r["done"])
    c.check(mode, "acpi_pm is and stays the clocksource",
            r["clocksource"] == {"before": "acpi_pm", "after": "acpi_pm"},
            str(r["clocksource"]))
    c.check(mode, "gettimeofday loop ran", "pmcheck" in r)
    c.check(mode, "not registered", "registered" not in r)
    return r


def check_source(c, mode, src):
    """The source of a migration (NAME-src): it registered, saved the VM
    and quit.  False when it did not run to the end."""
    ran = src is not None and src["rc"] == 0
    c.check(mode, "source QEMU ran and quit after the migration", ran,
            "rc=%s" % (src and src["rc"]))
    if not ran:
        return False
    text = "\n".join(src["lines"])
    c.check(mode, "source: firmware registered", "pvsmm: registered" in text)
    m = re.search(r"vm.state: (\d+) bytes", text)
    c.check(mode, "source: VM state saved", m and int(m.group(1)) > 0,
            m and m.group(0))
    return True


def check_migration(c, mode, src, r):
    """accel-migrate, seabios-migrate: the source registered and saved the
    VM; the restored VM ran no firmware (no registration line) -- so under
    accel every reflection it made came from the registration MSR that
    QEMU migrated."""
    if check_source(c, mode, src):
        c.check(mode, "destination: no firmware ran again", "registered" not in r)


def check_window(c, mode, src, r):
    """unregistered-to-stock, stock-to-accel: nothing registered on either
    side, the guest migrated inside clockstep's window, and its time did
    not step."""
    src_text = "\n".join(src["lines"]) if src else ""
    c.check(mode, "source QEMU quit after the migration, nothing registered",
            src is not None and src["rc"] == 0 and
            "pvsmm: registered" not in src_text, "rc=%s" % (src and src["rc"]))
    c.check(mode, "migrated inside the window",
            "L2-MIGRATE-WINDOW" in src_text and "CLOCKSTEP" not in src_text
            and "clockstep" in r)
    distance = abs(r.get("pmprobe", {}).get("kvmclock_minus_pm_ns", 0))
    c.check(mode, "kvmclock and the PM timer far enough apart for a step "
            "to show", distance >= CLOCKS_APART_MIN_NS, str(distance))
    step = r.get("clockstep", {})
    c.check(mode, "time did not step across the migration (offset within "
            "half the clocks' distance)", step.get("samples", 0) > 0 and
            step.get("max_offset_ns", 10**12) <= distance // 2,
            "%s, distance %d" % (step, distance))


def check_kexec(c, mode, run):
    """accel-kexec: the first kernel ran its checks and kexec'd; returns
    the second kernel's part of the run, parsed, with the firmware's
    registration (printed before the first kernel) carried over, for the
    checks every mode gets."""
    lines = run["lines"]
    at = next((i for i, l in enumerate(lines) if l.strip() == "L2-KEXEC"), None)
    c.check(mode, "the first kernel kexec'd", at is not None)
    at = len(lines) if at is None else at
    first = parse({"lines": lines[:at]})
    c.check(mode, "the first kernel's loop ran", "pmcheck" in first)
    second = parse({"lines": lines[at + 1:]})
    c.check(mode, "the second kernel booted, no firmware before it",
            second["clocksource"].get("before") is not None and
            "registered" not in second, str(second["clocksource"]))
    if "registered" in first:
        second["registered"] = first["registered"]
    return second


def check_refused(c, mode, src, dest):
    """accel-to-stock, accel-to-off: a registered guest, migrated to a
    QEMU without pvsmm, is refused there with an error, never run."""
    if not check_source(c, mode, src):
        return
    out = "\n".join(dest["lines"]) if dest else ""
    errors = [l for l in out.splitlines() if "qemu-system" in l or "pvsmm:" in l]
    # Refused at loading, not failed otherwise or timed out.
    c.check(mode, "destination refused the incoming guest",
            dest is not None and dest["rc"] not in (None, 0, 124) and
            "load of migration failed" in out and "device 'cpu'" in out,
            "rc=%s %s" % (dest and dest["rc"], errors))
    c.check(mode, "destination never ran the guest", "L2-" not in out)
    if mode == "accel-to-off":
        c.check(mode, "the error says why",
                "pvsmm: the guest registered a pvsmm handler on the source" in out,
                str(errors))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--pairs", type=int, default=2000)
    ap.add_argument("--timeout", type=int, default=1800)
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--no-ovmf", action="store_true",
                    help="skip the OVMF runs (and the lab QEMU they need)")
    ap.add_argument("--modes", help="comma-separated subset of the modes to run")
    ap.add_argument("--quick", action="store_true",
                    help="stock Debian QEMU only (stock, seabios*, "
                    "apparmor-*): nothing of QEMU to build (make check)")
    args = ap.parse_args()

    modes = ["stock", "seabios", "seabios-pc", "seabios-s3",
             "seabios-hotplug", "seabios-migrate", "seabios-apparmor",
             "apparmor-denied", "apparmor-noshim", "accel", "accel-s3",
             "accel-s3-migrate", "accel-kexec", "accel-migrate",
             "accel-to-stock", "accel-to-off", "unregistered-to-stock",
             "stock-to-accel"]
    if not args.no_ovmf:
        modes += ["ovmf-driver", "ovmf", "ovmf-rom", "ovmf-pc"]
    if args.quick:
        modes = [m for m in modes if m == "stock" or apparmor(m) or
                 m.startswith("seabios")]
    if args.modes:
        modes = args.modes.split(",")
    if not args.no_build:
        build(modes)
    # The boot media carry the guest's command line: made for these
    # settings on every run, --no-build or not.
    env = dict(os.environ, CALLS=str(args.calls), PAIRS=str(args.pairs))
    subprocess.run([os.path.join(TOP, "tests/qemu/make-iso.sh")], check=True, env=env)
    if any(m.startswith("ovmf") for m in modes):
        subprocess.run([os.path.join(TOP, "tests/qemu/make-esp.sh")], check=True,
                       env=env)
    rc, text = run_lab(modes, args.calls, args.pairs, args.timeout)
    runs = split_runs(text)
    c = Checker()
    c.check("lab", "lab run finished", rc == 0, "rc=%d (see build/qemu/lab.out)" % rc)
    results = {}
    for mode in modes:
        run = runs.get(mode)
        if mode in ("accel-to-stock", "accel-to-off"):
            check_refused(c, mode, runs.get(mode + "-src"), run)
            continue
        if not c.check(mode, "ran", run is not None and run["rc"] == 0,
                       "rc=%s" % (run and run["rc"])):
            continue
        if mode in ("apparmor-denied", "apparmor-noshim"):
            results[mode] = check_denied(c, mode, run)
            continue
        if mode == "seabios-apparmor":
            profile, denied = check_confined(c, mode, run)
            c.check(mode, "nothing denied", not denied, str(denied))
        if mode == "accel-kexec":
            r = check_kexec(c, mode, run)
        else:
            r = parse(run)
        results[mode] = r
        if mode == "ovmf-driver":
            check_driver(c, mode, r)
            continue
        c.check(mode, "guest finished", r["done"])
        c.check(mode, "acpi_pm is the clocksource",
                r["clocksource"].get("before") == "acpi_pm", str(r["clocksource"]))
        c.check(mode, "acpi_pm stays the clocksource",
                r["clocksource"].get("after") == "acpi_pm", str(r["clocksource"]))
        c.check(mode, "no clocksource warning", not r["warnings"], str(r["warnings"]))
        c.check(mode, "gettimeofday loop ran", "pmcheck" in r)
        probe = r.get("pmprobe", {})
        c.check(mode, "an exiting read's value within one tick of the reflected ones",
                probe.get("pairs") == args.pairs and probe.get("outside") == 0,
                str(probe))
        # Where the firmware put the PM block: SeaBIOS at 0x600 on both
        # machines, OVMF at 0x600 on q35 and 0xb000 on pc (PIIX4).
        c.check(mode, "the guest's PM timer port is the firmware's",
                probe.get("port") == (0xb008 if mode == "ovmf-pc" else 0x608),
                str(probe.get("port")))
        if "-s3" in mode:
            c.check(mode, "the guest suspended to RAM and resumed",
                    r.get("s3") == "resumed", str(r.get("s3")))
        if mode == "accel-s3-migrate":
            src = runs.get(mode + "-src")
            c.check(mode, "the source migrated the guest suspended",
                    src is not None and "HMP VM status: paused (suspended)"
                    in "\n".join(src["lines"]))
            c.check(mode, "the destination loaded the guest suspended",
                    "VM status: paused (suspended)" in
                    "\n".join(run["lines"]))
        if mode in WINDOW_MODES:
            check_window(c, mode, runs.get(mode + "-src"), r)
            continue
        if mode == "stock":
            continue
        if mode.endswith("-migrate"):
            check_migration(c, mode, runs.get(mode + "-src"), r)
        else:
            c.check(mode, "firmware registered", "registered" in r)
        marks = r["marks"]
        if mode.startswith("seabios") or mode in ("ovmf", "ovmf-rom", "ovmf-pc"):
            c.check(mode, "shim enabled KVM_CAP_PVSMM_REFLECT", r.get("cap"))
            c.check(mode, "shim added the CPUID leaf", r.get("leaf"))
            if mode == "seabios-migrate":
                # kvmclock came with the guest: lining it up with QEMU's
                # clock now would step the time the guest is reading.
                c.check(mode, "kvmclock kept as migrated, not stepped",
                        r.get("incoming") and "aligned_ns" not in r,
                        str(r.get("aligned_ns")))
            else:
                c.check(mode, "kvmclock aligned to QEMU's PM timer within a tick",
                        abs(r.get("aligned_ns", 10**9)) <= TICK_NS,
                        str(r.get("aligned_ns")))
            shim = r.get("shim_exit", {})
            c.check(mode, "the shim served every PM read that exited after the "
                    "clocks were aligned, the probe's INS included",
                    shim.get("served", 0) >= args.pairs, str(shim))
        if mode == "seabios-hotplug":
            c.check(mode, "vCPU 1 plugged in, the registration kept",
                    1 in r.get("kept", []), str(r.get("kept")))
            # What an operator sees without debugfs: KVM's binary stats
            # through QEMU (HMP info stats; QMP query-stats is the same).
            c.check(mode, "HMP info stats vcpu shows pvsmm's counters",
                    {"pvsmm_reflections", "pvsmm_fallback_cpl",
                     "pvsmm_fallback_mode"} <= set(r.get("hmp_stats", [])),
                    str(r.get("hmp_stats")))
            # ... and the VM's registration (HMP info stats vm): whether
            # and with which status, PVSMM_STATUS_OK being 1.
            vm = r.get("hmp_values", {})
            c.check(mode, "HMP info stats vm: registered, status OK",
                    vm.get("pvsmm_registered") == "yes" and
                    vm.get("pvsmm_status") == "1", str(vm))
        if mode == "seabios-migrate":
            # Stock QEMU does not migrate the registration MSR: the
            # restored guest's reads exit, and none may reach QEMU.
            c.check(mode, "restored guest not registered: no reflection",
                    delta(marks, "pvsmm_reflections") == 0,
                    str(delta(marks, "pvsmm_reflections")))
            c.check(mode, "every PM read in the loop served by the shim",
                    (delta(marks, "pm_user_exits") or 0) >= args.calls and
                    delta(marks, "pm_shim_reads") == delta(marks, "pm_user_exits"),
                    str(marks))
            continue
        c.check(mode, "0 userspace exits for the PM port in the loop",
                delta(marks, "pm_user_exits") == 0, str(marks))
        c.check(mode, "every call reflected", (delta(marks, "pvsmm_reflections") or 0)
                >= args.calls, str(delta(marks, "pvsmm_reflections")))
        c.check(mode, "no fallback to userspace", delta(marks, "pvsmm_fallbacks") == 0,
                str(delta(marks, "pvsmm_fallbacks")))

    print("%-11s %16s %12s %12s %12s %10s %10s %10s" % (
        "mode", "TSC/gettimeofday", "user exits", "reflections", "IRET returns",
        "probe out", "aligned ns", "step ns"))
    for mode, r in results.items():
        print("%-11s %16s %12s %12s %12s %10s %10s %10s" % (
            mode, r.get("pmcheck", {}).get("cycles_per_call", "-"),
            delta(r["marks"], "pm_user_exits") if r["marks"] else "-",
            delta(r["marks"], "pvsmm_reflections") if r["marks"] else "-",
            delta(r["marks"], "pvsmm_iret_returns") if r["marks"] else "-",
            r.get("pmprobe", {}).get("outside", "-"), r.get("aligned_ns", "-"),
            r.get("clockstep", {}).get("max_offset_ns", "-")))
    with open(os.path.join(TOP, "build/qemu/results.json"), "w") as f:
        json.dump({m: {k: v for k, v in r.items() if k != "lines"}
                   for m, r in results.items()}, f, indent=1)
    return c.report("qemu")


if __name__ == "__main__":
    sys.exit(main())
