#!/usr/bin/env python3
"""Time `promptlint check CORPUS --output-format json` on a real-code corpus.

Usage: python benchmarks/corpus.py [CORPUS] [--runs N] [--promptlint CMD]
Default CORPUS: /tmp/promptlint-corpus/src (made by ../shared/corpus.sh). Default CMD: this
Python's `-m promptlint`.

Each run is one subprocess. Measured per run: wall time (seconds, time.perf_counter around the
subprocess), CPU time (seconds, user + system, from resource.getrusage(RUSAGE_CHILDREN) before and
after: it includes the worker processes promptlint forks, once they have been waited for) and peak
memory (ru_maxrss of RUSAGE_CHILDREN: the largest resident set of any one process of the run
tree, not the sum over workers; KiB on Linux, bytes on macOS, shown in MiB). Then the counts of
the last run: files checked, prompts, diagnostics by severity and by code, errors, exit code.
No assertions: this is a measurement, not a test.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

DEFAULT_CORPUS = Path("/tmp/promptlint-corpus/src")


def _maxrss_mib(ru_maxrss: int) -> float:
    return ru_maxrss / (1024 * 1024) if sys.platform == "darwin" else ru_maxrss / 1024


def run_once(cmd: list[str], corpus: Path) -> dict:
    """One timed run; its figures and the parsed JSON report (None when stdout is not JSON)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run([*cmd, "check", str(corpus), "--output-format", "json"],
                          capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        report = json.loads(proc.stdout)
    except ValueError:
        report = None
    return {
        "wall_s": wall,
        "cpu_s": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
        "user_s": after.ru_utime - before.ru_utime,
        "sys_s": after.ru_stime - before.ru_stime,
        "peak_mib": _maxrss_mib(after.ru_maxrss),
        "exit": proc.returncode,
        "traceback": "Traceback (most recent call last)" in proc.stderr,
        "stderr": proc.stderr.strip()[-500:],
        "report": report,
    }


def count_files(corpus: Path) -> int | None:
    """The files promptlint checks under `corpus` (same discovery and exclusions), or None."""
    try:
        from promptlint.config import find_config, load_settings
        from promptlint.discovery import discover
        settings = load_settings(find_config([corpus]), cli_overrides={})
        return sum(1 for f in discover([corpus]) if not settings.is_excluded(f))
    except Exception:  # a measurement script: a missing internal only drops this figure
        return None


def table(rows: list[tuple[str, object]]) -> str:
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"  {k:<{width}}  {v}" for k, v in rows)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--runs", type=int, default=1, help="number of timed runs (default 1)")
    ap.add_argument("--promptlint", default=f"{shlex.quote(sys.executable)} -m promptlint",
                    help="command that runs promptlint")
    args = ap.parse_args()
    if not args.corpus.is_dir():
        print(f"no corpus at {args.corpus}: run ../shared/corpus.sh first", file=sys.stderr)
        return 2
    cmd = shlex.split(args.promptlint)

    runs = [run_once(cmd, args.corpus) for _ in range(max(args.runs, 1))]
    print(f"promptlint check {args.corpus} --output-format json  ({os.cpu_count()} CPUs)")
    print(f"  {'run':>3}  {'wall s':>8}  {'CPU s':>8}  {'user s':>8}  {'sys s':>7}  {'peak MiB':>9}  exit")
    for i, r in enumerate(runs, 1):
        print(f"  {i:>3}  {r['wall_s']:>8.2f}  {r['cpu_s']:>8.2f}  {r['user_s']:>8.2f}  {r['sys_s']:>7.2f}"
              f"  {r['peak_mib']:>9.1f}  {r['exit']}{'  TRACEBACK' if r['traceback'] else ''}")

    last = runs[-1]
    report = last["report"]
    if report is None:
        print(f"\nno JSON report on stdout; stderr:\n{last['stderr']}")
        return 0
    diags = report.get("diagnostics", [])
    severity = Counter(d.get("severity") for d in diags)
    by_code = Counter(d.get("code") for d in diags)
    print()
    print(table([
        ("files", count_files(args.corpus)),
        ("prompts", len(report.get("prompts", []))),
        ("diagnostics", len(diags)),
        ("  error", severity.get("error", 0)),
        ("  warning", severity.get("warning", 0)),
        ("  info", severity.get("info", 0)),
        ("PRM001 (unparsable files)", by_code.get("PRM001", 0)),
        ("errors", len(report.get("errors", []))),
    ]))
    print()
    print("by code: " + ", ".join(f"{code} {n}" for code, n in sorted(by_code.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
