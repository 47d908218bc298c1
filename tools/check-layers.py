#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Fails on an import circle in a C component (make unit, make check).

A module is one .c file with its .h (devices/pm1.c + devices/pm1.h).  Two
graphs are built for each component and both must be acyclic:

  includes  module A -> module B when A's .c or .h includes B's header
            ("..." includes, resolved like the compiler: the including
            file's folder, then the component's -iquote folders);
  symbols   module A -> module B when A's object file uses a symbol that
            B's object file defines (nm), which also catches a header
            that declares another module's functions.

A circle means no module of it can be understood, tested or replaced
without the others: a device that calls back up into the VM that
created it, say.  Prints "layers-NAME: N passed, M failed", one check per
graph, and each circle it finds.

A symbol listed with --libc (e.g. ioctl in the QEMU shim, which wraps
libc's) stands for libc, not for the module that defines the wrapper.

Usage: check-layers.py [--libc SYM,...] NAME SRC_DIR OBJ_DIR [IQUOTE_DIR...]
"""
import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def modules(src_dir):
    """{module: [files]}, module = path under src_dir without extension."""
    mods = {}
    for root, _, files in os.walk(src_dir):
        for f in files:
            if f.endswith((".c", ".h")):
                path = os.path.join(root, f)
                mod = os.path.splitext(os.path.relpath(path, src_dir))[0]
                mods.setdefault(mod, []).append(path)
    return mods


def include_graph(src_dir, quote_dirs):
    mods = modules(src_dir)
    graph = {m: set() for m in mods}
    for mod, files in mods.items():
        for path in files:
            with open(path) as f:
                names = INCLUDE.findall(f.read())
            for name in names:
                for d in [os.path.dirname(path)] + quote_dirs:
                    target = os.path.normpath(os.path.join(d, name))
                    if os.path.exists(target):
                        break
                else:
                    continue
                rel = os.path.relpath(target, src_dir)
                if rel.startswith(".."):
                    continue        # another component: not ours to order
                dep = os.path.splitext(rel)[0]
                if dep != mod:
                    graph[mod].add(dep)
    return graph


def nm(obj, *flags):
    out = subprocess.run(["nm", "--format=posix", *flags, obj], check=True,
                         capture_output=True, text=True).stdout
    return {line.split()[0] for line in out.splitlines() if line.strip()}


def symbol_graph(obj_dir, libc):
    objs = {}
    for root, _, files in os.walk(obj_dir):
        for f in files:
            if f.endswith(".o"):
                path = os.path.join(root, f)
                objs[os.path.splitext(os.path.relpath(path, obj_dir))[0]] = path
    defined = {}
    for mod, obj in objs.items():
        for sym in nm(obj, "--defined-only", "--extern-only") - libc:
            defined[sym] = mod
    graph = {m: set() for m in objs}
    for mod, obj in objs.items():
        for sym in nm(obj, "--undefined-only"):
            dep = defined.get(sym)
            if dep and dep != mod:
                graph[mod].add(dep)
    return graph


def find_cycles(graph):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, comps = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return comps


def main():
    args = sys.argv[1:]
    libc = set()
    if args[:1] == ["--libc"] and len(args) > 1:
        libc = set(args[1].split(","))
        args = args[2:]
    if len(args) < 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    name, src_dir, obj_dir = args[:3]
    quote_dirs = args[3:]
    passed = failed = 0
    graphs = [("includes", include_graph(src_dir, quote_dirs))]
    if os.path.isdir(obj_dir):
        graphs.append(("symbols", symbol_graph(obj_dir, libc)))
    else:
        print("FAIL %s: no objects in %s (build it first)" % (name, obj_dir))
        failed += 1
    for kind, graph in graphs:
        cycles = find_cycles(graph)
        for comp in cycles:
            print("FAIL %s %s: circle through %s" % (name, kind, " ".join(comp)))
            for m in comp:
                print("    %s -> %s" % (m, " ".join(sorted(graph[m] & set(comp)))))
        if cycles:
            failed += 1
        else:
            passed += 1
    print("layers-%s: %d passed, %d failed" % (name, passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
