#!/usr/bin/env python3
"""promptlint cold, warm and after editing 5 files, beside pcdlint and ruff, on one tree (issue 13).

Usage: python benchmarks/speed.py [TREE] [--rounds N] [--pcdlint CMD] [--ruff CMD] [--jobs N]
                                  [--no-peers] [--package NAME] [--scaling]
Default TREE: /tmp/promptlint-corpus/src (made by ../shared/corpus.sh).

With --scaling, only promptlint cold runs, on growing parts of TREE (its top-level folders in
name order, cut at about a quarter, half and all of its lines of Python; all named on one command
line), to show how time and memory grow with the size of the tree.

Each round runs, one after the other (alternating, so a change of load hits every tool alike):
1. promptlint cold: `promptlint check TREE --output-format json` with an empty cache folder;
2. pcdlint: `pcdlint TREE --format json` (skipped with --no-peers or when not installed);
3. ruff: `ruff check TREE --no-cache --exit-zero` (same);
4. promptlint warm: the same command again, nothing changed;
5. promptlint after editing 5 files: a comment line is inserted at the top of 5 Python files of
   one package that hold prompts (the package with the most prompt files, or --package), which
   moves every finding of those files down one row; the files are restored afterwards.
Measured per run: wall time (time.perf_counter around the process), CPU time (user + system of
the process and every process it waited for, from os.wait4) and peak memory (ru_maxrss of
os.wait4: the largest resident set of any one process of the run, not a sum). The summary gives
the median of each, the ratios of the acceptance lines of issue 13, and checks that the warm and
edited runs report exactly what a run without a cache reports (outside the timed runs).
No assertions: a measurement, not a test.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

DEFAULT_TREE = Path("/tmp/promptlint-corpus/src")
EDITED = 5
MARK = "# edited by benchmarks/speed.py\n"


def measure(cmd: list[str], env: dict | None = None, cwd: Path | None = None) -> dict:
    """Run `cmd` (stdout to a temporary file); wall, CPU, peak memory, exit status, stdout."""
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.DEVNULL, env=env, cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        data = out.read()
    peak = usage.ru_maxrss / (1024 * 1024) if sys.platform == "darwin" else usage.ru_maxrss / 1024
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "peak": peak, "exit": proc.returncode,
            "stdout": data}


def prompt_files(report: dict, tree: Path, package: str | None) -> list[Path]:
    """`EDITED` Python files of one package that hold prompts (by the cold report)."""
    by_package: dict[str, list[str]] = {}
    for prompt in report.get("prompts", []):
        name = prompt["filename"]
        if not name.endswith(".py"):
            continue
        rel = Path(os.path.abspath(name)).relative_to(tree.resolve())
        by_package.setdefault(rel.parts[0], [])
        if name not in by_package[rel.parts[0]]:
            by_package[rel.parts[0]].append(name)
    if package is None:
        package = max(by_package, key=lambda p: len(by_package[p]))
    return [Path(f) for f in sorted(by_package[package])[:EDITED]]


def edit(files: list[Path]) -> dict[Path, bytes]:
    saved = {f: f.read_bytes() for f in files}
    for f, data in saved.items():
        f.write_bytes(MARK.encode() + data)
    return saved


def restore(saved: dict[Path, bytes]) -> None:
    for f, data in saved.items():
        f.write_bytes(data)


def row(name: str, runs: list[dict]) -> str:
    med = {k: statistics.median(r[k] for r in runs) for k in ("wall", "cpu", "peak")}
    walls = ", ".join(f"{r['wall']:.2f}" for r in runs)
    return f"  {name:<22} {med['wall']:>8.2f} {med['cpu']:>8.2f} {med['peak']:>9.1f}   ({walls})"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tree", nargs="?", type=Path, default=DEFAULT_TREE)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--promptlint", default=f"{shlex.quote(sys.executable)} -m promptlint")
    ap.add_argument("--pcdlint", default="/tmp/venv-pcd/bin/pcdlint")
    ap.add_argument("--ruff", default=shutil.which("ruff") or "ruff")
    ap.add_argument("--jobs", type=int, default=None, help="promptlint --jobs")
    ap.add_argument("--package", default=None, help="the package whose files are edited")
    ap.add_argument("--no-peers", action="store_true", help="run promptlint only")
    ap.add_argument("--scaling", action="store_true", help="cold runs on a quarter, half and all of the tree")
    args = ap.parse_args()
    tree = args.tree.resolve()
    if not tree.is_dir():
        print(f"no tree at {tree} (the corpus: run ../shared/corpus.sh)", file=sys.stderr)
        return 2
    if args.scaling:
        return scaling(tree, args)
    cache = Path(tempfile.mkdtemp(prefix="promptlint-speed-"))
    env = {**os.environ, "PROMPTLINT_CACHE_DIR": str(cache)}
    check = [*shlex.split(args.promptlint), "check", str(tree), "--output-format", "json"]
    check += ["--jobs", str(args.jobs)] if args.jobs else []
    peers = {}
    if not args.no_peers:
        if shutil.which(args.pcdlint) or Path(args.pcdlint).is_file():
            peers["pcdlint"] = [args.pcdlint, str(tree), "--format", "json"]
        if shutil.which(args.ruff) or Path(args.ruff).is_file():
            peers["ruff"] = [args.ruff, "check", str(tree), "--no-cache", "--exit-zero", "--output-format", "concise"]
    runs: dict[str, list[dict]] = {"promptlint cold": [], **{p: [] for p in peers}, "promptlint warm": [],
                                   f"promptlint {EDITED} edited": []}
    edited: list[Path] = []
    reports: dict[str, bytes] = {}
    try:
        for _ in range(max(args.rounds, 1)):
            shutil.rmtree(cache, ignore_errors=True)
            cold = measure(check, env)
            runs["promptlint cold"].append(cold)
            reports["cold"] = cold["stdout"]
            for name, cmd in peers.items():
                runs[name].append(measure(cmd))
            warm = measure(check, env)
            runs["promptlint warm"].append(warm)
            reports["warm"] = warm["stdout"]
            if not edited:
                edited = prompt_files(json.loads(cold["stdout"]), tree, args.package)
            saved = edit(edited)
            try:
                touched = measure(check, env)
                runs[f"promptlint {EDITED} edited"].append(touched)
                reports["edited"] = touched["stdout"]
                reports["edited, no cache"] = measure([*check, "--no-cache"], env)["stdout"]
            finally:
                restore(saved)
    finally:
        shutil.rmtree(cache, ignore_errors=True)

    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"tree {tree}: {count_lines(tree):,} lines of Python in {count_files(tree):,} .py files; "
          f"{cpus} CPUs; load average {os.getloadavg()[0]:.2f}; {args.rounds} round(s)")
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):  # (an installed promptlint has its .pyc files)
        print("  note: PYTHONDONTWRITEBYTECODE is set: every run compiles promptlint's modules again "
              "(about 0.2 s of each warm and edited run)")
    print(f"  {'run':<22} {'wall s':>8} {'CPU s':>8} {'peak MiB':>9}   (wall of each round)")
    for name, got in runs.items():
        if got:
            print(row(name, got))
    wall = {name: statistics.median(r["wall"] for r in got) for name, got in runs.items() if got}
    cold = wall["promptlint cold"]
    print()
    if "pcdlint" in wall:
        print(f"  cold / pcdlint      {cold / wall['pcdlint']:.3f}   (issue 13: at most 0.25)")
    if "ruff" in wall:
        print(f"  cold / ruff         {cold / wall['ruff']:.1f}")
    print(f"  warm / cold         {wall['promptlint warm'] / cold:.3f}   (at most 0.05)")
    print(f"  {EDITED} edited / cold     {wall[f'promptlint {EDITED} edited'] / cold:.3f}   (at most 0.1)")
    peak = max(r["peak"] for name, got in runs.items() if name.startswith("promptlint") for r in got)
    print(f"  promptlint peak     {peak:.1f} MiB   (at most 300 on the corpus, 500 on 1.5M lines)")
    same = reports.get("warm") == reports.get("cold")
    same_edited = reports.get("edited") == reports.get("edited, no cache")
    print(f"  warm report == cold report: {same}; edited report == a run without a cache: {same_edited}")
    print(f"  edited files: {', '.join(str(f) for f in edited)}")
    cold_report = json.loads(reports["cold"])
    codes = Counter(d["code"] for d in cold_report["diagnostics"])
    print(f"  report: {len(cold_report['prompts'])} prompts, {len(cold_report['diagnostics'])} diagnostics "
          f"({', '.join(f'{c} {n}' for c, n in sorted(codes.items()))}), {len(cold_report['errors'])} errors")
    return 0


def scaling(tree: Path, args) -> int:
    """Cold runs (no cache) on about a quarter, half and all of the tree's lines."""
    parts = sorted(p for p in tree.iterdir() if p.is_dir() or p.suffix == ".py")
    sizes = [(p, count_lines(p) if p.is_dir() else count_lines_of(p)) for p in parts]
    total = sum(n for _, n in sizes)
    print(f"tree {tree}: {total:,} lines of Python in {count_files(tree):,} .py files; "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"  {'lines':>10} {'wall s':>8} {'CPU s':>8} {'peak MiB':>9} {'CPU s per 100k lines':>21}")
    base = [*shlex.split(args.promptlint), "check"]
    tail = ["--output-format", "json", "--no-cache"] + (["--jobs", str(args.jobs)] if args.jobs else [])
    for share in (0.25, 0.5, 1.0):
        chosen, lines = [], 0
        for path, n in sizes:
            if lines >= share * total and share < 1.0:
                break
            chosen.append(str(path))
            lines += n
        got = measure([*base, *chosen, *tail])
        print(f"  {lines:>10,} {got['wall']:>8.2f} {got['cpu']:>8.2f} {got['peak']:>9.1f} "
              f"{got['cpu'] / lines * 100_000:>21.2f}")
    return 0


def count_lines_of(path: Path) -> int:
    try:
        with open(path, "rb") as f:
            return sum(1 for _ in f)
    except OSError:
        return 0


def count_files(tree: Path) -> int:
    return sum(1 for _ in tree.rglob("*.py"))


def count_lines(tree: Path) -> int:
    total = 0
    for path in tree.rglob("*.py"):
        try:
            with open(path, "rb") as f:
                total += sum(1 for _ in f)
        except OSError:
            pass
    return total


if __name__ == "__main__":
    sys.exit(main())
