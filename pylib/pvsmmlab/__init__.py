# SPDX-License-Identifier: MIT
"""pvsmm's Python helpers, shared by the lab drivers (tests/*/check.py) and
the benchmarks (tools/*.py): neither imports the other's files.

  lab        runs pvsmm-vmm in the nested KVM lab, takes its output apart
  guestlab   real Linux guests in the lab: plan, run, what is counted
  checker    the drivers' one way of checking and reporting
  pmtimer    the PM timer's one definition of time, in Python

Scripts put this folder's parent (pylib/) first on sys.path.
"""
