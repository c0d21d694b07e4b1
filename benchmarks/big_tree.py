#!/usr/bin/env python3
"""Cold runs of promptlint on nested trees of real packages, up to 1.5 M lines (issue 13's big-tree line).

Usage: python benchmarks/big_tree.py OUT PACKAGE_DIR... [--sizes 500000,1000000,1500000]
                                     [--promptlint CMD] [--jobs N] [--reports DIR] [--assemble-only]

Each PACKAGE_DIR is one package's source folder (for `.../NAME/src`, the package is NAME; else the
folder's own name); a name given twice is kept once (the first). The packages are put in a fixed
order, by the SHA-1 of their names (a mix of sizes that does not depend on the order given), and
each tree is the first packages of that order whose lines of Python (every line of every regular
`.py` file, as `wc -l` counts them) reach its size. So each tree holds the smaller ones.
- OUT/pkgs/NAME: a copy of each package folder used (symbolic links copied as links: promptlint
  never walks a linked folder, nor is one counted); made once, kept between invocations;
- OUT/lines-SIZE/NAME: hard links to those copies, one folder per tree.
Then, smallest tree first and one at a time: `promptlint check TREE --no-cache -q --output-format
json` (`--jobs` if given). Per run: wall time; user and system CPU of the whole process tree (the
fork server and its workers included: `os.wait4`); the largest resident set of any one process
(`ru_maxrss`, what `/usr/bin/time -v` reports); and, sampled every second from /proc, the largest
sum over the process tree of the resident sets (pages shared by forked workers counted once per
process: an upper bound) and of the proportional sets (`Pss` of smaps_rollup: shared pages split
between their processes, the memory the run holds), with the most processes seen at once. The
report goes to OUT/report-SIZE.json (DIR/report-SIZE.json with --reports); its prompts, diagnostics
and errors are counted (a run whose report is not JSON shows its exit status instead). The load
average is printed before and after each run. No assertions: a measurement, not a test.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

SIZES = (500_000, 1_000_000, 1_500_000)
PAGE = os.sysconf("SC_PAGE_SIZE")
MIB = 1024 * 1024


def py_lines(folder: Path) -> tuple[int, int]:
    """(lines, files) of the regular `.py` files under `folder`, links not followed."""
    lines = files = 0
    for root, _dirs, names in os.walk(folder):
        for name in names:
            path = os.path.join(root, name)
            if name.endswith(".py") and not os.path.islink(path) and os.path.isfile(path):
                with open(path, "rb") as f:
                    lines += f.read().count(b"\n")
                files += 1
    return lines, files


def package_name(folder: Path) -> str:
    return folder.parent.name if folder.name == "src" else folder.name


def ordered(folders: list[Path]) -> list[tuple[str, Path]]:
    """Unique packages (the first folder of a name), in the order of the SHA-1 of their names."""
    unique: dict[str, Path] = {}
    for folder in folders:
        unique.setdefault(package_name(folder), folder)
    return sorted(unique.items(), key=lambda item: hashlib.sha1(item[0].encode()).hexdigest())


def assemble(out: Path, packages: list[tuple[str, Path]], sizes: list[int]) -> list[tuple[int, Path, int, int]]:
    """Make the copies and the nested trees; (size, tree, lines, .py files) per size."""
    trees, lines, files, chosen = [], 0, 0, []
    remaining = sorted(sizes)
    for name, folder in packages:
        if not remaining:
            break
        copy = out / "pkgs" / name
        if not copy.exists():
            shutil.copytree(folder, copy, symlinks=True)
        n, f = py_lines(copy)
        lines, files = lines + n, files + f
        chosen.append(name)
        while remaining and lines >= remaining[0]:
            size = remaining.pop(0)
            tree = out / f"lines-{size}"
            shutil.rmtree(tree, ignore_errors=True)
            tree.mkdir(parents=True)
            for pkg in chosen:
                shutil.copytree(out / "pkgs" / pkg, tree / pkg, symlinks=True, copy_function=os.link)
            trees.append((size, tree, lines, files))
            print(f"tree {tree}: {len(chosen)} packages, {lines:,} lines in {files:,} .py files "
                  f"(last: {name})", flush=True)
    for size in remaining:
        print(f"not enough packages for {size:,} lines (all make {lines:,})", file=sys.stderr)
    return trees


def descendants(root: int) -> list[int]:
    """`root` and every process below it (by the parent ids of /proc/PID/stat)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def memory_of(pids: list[int]) -> tuple[int, int]:
    """(sum of resident sets, sum of proportional sets) in bytes; gone processes count 0."""
    rss = pss = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/statm") as f:
                rss += int(f.read().split()[1]) * PAGE
            with open(f"/proc/{pid}/smaps_rollup") as f:
                for line in f:
                    if line.startswith("Pss:"):
                        pss += int(line.split()[1]) * 1024
                        break
        except (OSError, ValueError, IndexError):
            pass
    return rss, pss


def measure(cmd: list[str], report: Path) -> dict:
    """Run `cmd` with stdout to `report`, sampling the process tree's memory every second."""
    peaks = {"rss_sum": 0, "pss_sum": 0, "procs": 0}
    done = threading.Event()
    with open(report, "wb") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.DEVNULL)

        def sample() -> None:
            while not done.wait(1.0):
                pids = descendants(proc.pid)
                rss, pss = memory_of(pids)
                peaks["rss_sum"] = max(peaks["rss_sum"], rss)
                peaks["pss_sum"] = max(peaks["pss_sum"], pss)
                peaks["procs"] = max(peaks["procs"], len(pids))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        done.set()
        sampler.join()
    return {"wall": wall, "user": usage.ru_utime, "sys": usage.ru_stime, "maxrss": usage.ru_maxrss * 1024,
            "exit": os.waitstatus_to_exitcode(status), **peaks}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path, help="folder for the copies, trees and reports (made if missing)")
    ap.add_argument("packages", nargs="+", type=Path, help="package source folders")
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)), help="lines of each tree, comma-separated")
    ap.add_argument("--promptlint", default=f"{shlex.quote(sys.executable)} -m promptlint")
    ap.add_argument("--jobs", type=int, default=None, help="promptlint --jobs")
    ap.add_argument("--reports", type=Path, default=None, help="folder of the reports (default: OUT)")
    ap.add_argument("--assemble-only", action="store_true", help="make the trees, run nothing")
    args = ap.parse_args()
    out = args.out.resolve()
    trees = assemble(out, ordered([p.resolve() for p in args.packages]), [int(s) for s in args.sizes.split(",")])
    if args.assemble_only or not trees:
        return 0
    print(f"{len(os.sched_getaffinity(0))} CPUs; promptlint: {args.promptlint}", flush=True)
    head = ("lines", ".py files", "wall s", "user s", "sys s", "CPU s/100k", "max RSS MiB", "sum RSS MiB",
            "sum PSS MiB", "procs", "prompts", "diags", "errors", "load")
    rows = []
    (args.reports or out).mkdir(parents=True, exist_ok=True)
    for size, tree, lines, files in trees:
        report = (args.reports or out) / f"report-{size}.json"
        cmd = [*shlex.split(args.promptlint), "check", str(tree), "--no-cache", "-q", "--output-format", "json"]
        cmd += ["--jobs", str(args.jobs)] if args.jobs else []
        load = os.getloadavg()[0]
        got = measure(cmd, report)
        try:
            data = json.loads(report.read_bytes())
            counts = [str(len(data[k])) for k in ("prompts", "diagnostics", "errors")]
        except (ValueError, KeyError):
            counts = ["-", "-", f"exit {got['exit']}"]
        cpu = got["user"] + got["sys"]
        rows.append((f"{lines:,}", f"{files:,}", f"{got['wall']:.1f}", f"{got['user']:.1f}", f"{got['sys']:.1f}",
                     f"{cpu / lines * 100_000:.2f}", f"{got['maxrss'] / MIB:.0f}", f"{got['rss_sum'] / MIB:.0f}",
                     f"{got['pss_sum'] / MIB:.0f}", str(got["procs"]), *counts,
                     f"{load:.2f} -> {os.getloadavg()[0]:.2f}"))
        print(" | ".join(rows[-1]), flush=True)
    print("| " + " | ".join(head) + " |")
    print("|" + "---:|" * len(head))
    for r in rows:
        print("| " + " | ".join(r) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
