"""Mutation corpus for `promptlint fix` (issue 17): inject known defects into prompt-building code
of real LLM packages, then check that `check` finds them and `fix --unsafe-fixes` repairs them
without breaking anything.

Usage:
    python benchmarks/mutation.py                      # download, mutate, check, fix, report
    python benchmarks/mutation.py --work /tmp/x --max-hosts 20 --promptlint "promptlint"

What it does (only through the command line, so it measures whatever analysis is installed):
1. `pip download --no-deps` a few LLM packages into the work folder (never committed) and unpack
   their Python files.
2. Hosts: module-level prompt constants written as multi-line triple-quoted strings (200+
   characters) in files that compile. A host file whose own findings `fix --unsafe-fixes` would
   change is left out, so any change outside an injected defect is the fixer's fault.
3. For each host and each defect, one mutated copy of the file:
   - time: the constant becomes an f-string whose first line is `Current time: {now():%H:%M:%S}`
     (the real prompt text follows it, braces doubled); a function that sends it is appended;
   - tools: an appended function sends the prompt with `tools=[registry[n] for n in set(registry)]`;
   - dumps: an appended function puts `json.dumps(profile)` (no sort_keys) into the system prompt;
   - listdir: an appended function lists `os.listdir(folder)` into the system prompt.
4. `check`: each defect must be reported (its rule, on an injected line).
5. `fix --unsafe-fixes` on a copy: every file must compile, the defect's finding must be gone, the
   diff against the mutated file must touch injected lines only; a second `fix` must change
   nothing.
6. SIGKILL: `fix` is killed while it writes (after 1, 5 and half of the files changed): every file
   must then be byte for byte the mutated one or the fixed one (never truncated or mixed).
Prints the figures as a Markdown table (benchmarks/README.md quotes them).
"""
from __future__ import annotations

import argparse
import ast
import difflib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

PACKAGES = ["aider-chat==0.86.2", "llama-index-core==0.14.25", "marvin==3.2.7", "open-interpreter==0.4.3",
            "openhands-ai==0.9.8", "langchain-core==1.8.4", "smolagents==1.26.0"]
EXPECTED = {"time": {"PRM102", "PRM101"}, "tools": {"PRM203"}, "dumps": {"PRM201"}, "listdir": {"PRM202"}}
SEND = ('    return _pl_openai.OpenAI().chat.completions.create(\n'
        '        model="gpt-4o", messages=[{{"role": "system", "content": {system}}}, '
        '{{"role": "user", "content": question}}]{extra})\n')
APPENDED = {
    "time": ("import openai as _pl_openai\n\n\ndef _promptlint_mutation_send(question):\n"
             + SEND.format(system="@NAME@", extra="")),
    "tools": ("import openai as _pl_openai\n\n\ndef _promptlint_mutation_tools(question, registry):\n"
              "    tools = [registry[name] for name in set(registry)]\n"
              + SEND.format(system="@NAME@", extra=", tools=tools")),
    "dumps": ("import json as _pl_json\nimport openai as _pl_openai\n\n\n"
              "def _promptlint_mutation_profile(question, profile):\n"
              '    system = @NAME@ + "\\nThe user\'s profile:\\n" + _pl_json.dumps(profile) + '
              '"\\nAdapt every answer to this profile and keep it short."\n'
              + SEND.format(system="system", extra="")),
    "listdir": ("import os as _pl_os\nimport openai as _pl_openai\n\n\n"
                "def _promptlint_mutation_skills(question, folder):\n"
                '    skills = "\\n".join(f"- {entry}" for entry in _pl_os.listdir(folder))\n'
                '    system = @NAME@ + "\\nSkills you can use:\\n" + skills + '
                '"\\nUse a skill only when the question needs it."\n'
                + SEND.format(system="system", extra="")),
}
TIME_LINE = "Current time: {_pl_dt.datetime.now():%H:%M:%S}\n"
LITERAL = re.compile(r"(?i)(r?)(\"\"\"|''')")
PROMPT_NAME = re.compile(r"(?i)prompt|system|instruction|template|message|context|persona|guideline")
SUPPRESSION = re.compile(r"#\s*(noqa|promptlint:)")


@dataclass
class Host:
    """A prompt constant in a real file: a module-level `name = <triple-quoted str>`."""

    path: Path
    rel: str
    name: str
    row: int          # 1-based row of the assignment
    start: int        # character offsets of the string literal in the file's text
    end: int


@dataclass
class Mutant:
    host: Host
    defect: str
    file: str                                   # name in the work folder
    text: str
    regions: list[tuple[int, int]] = field(default_factory=list)  # injected rows, 1-based, inclusive


# --------------------------------------------------------------------------- corpus
def download(work: Path) -> Path:
    wheels, src = work / "wheels", work / "src"
    wheels.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                    "-d", str(wheels), *PACKAGES], check=True)
    for whl in sorted(wheels.glob("*.whl")):
        out = src / whl.name.split("-")[0]
        if out.exists():
            continue
        with zipfile.ZipFile(whl) as archive:
            for info in archive.infolist():
                if info.filename.endswith(".py") and ".dist-info" not in info.filename and info.file_size < 1_000_000:
                    archive.extract(info, out)
    return src


def find_hosts(src: Path, limit: int) -> list[Host]:
    hosts = []
    for path in sorted(src.rglob("*.py")):
        try:
            text = path.read_text(encoding="utf-8")
            tree = ast.parse(text)
            compile(text, str(path), "exec")
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        if "\r" in text:
            continue
        offsets = [0]
        for line in text.split("\n")[:-1]:
            offsets.append(offsets[-1] + len(line) + 1)
        for stmt in tree.body:
            value = getattr(stmt, "value", None)
            if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                    and isinstance(value, ast.Constant) and isinstance(value.value, str)):
                continue
            if value.end_lineno - value.lineno < 3 or len(value.value) < 200 or not value.lineno == stmt.lineno:
                continue
            line = text.split("\n")[value.lineno - 1]
            start = offsets[value.lineno - 1] + len(line.encode()[:value.col_offset].decode())
            end_line = text.split("\n")[value.end_lineno - 1]
            end = offsets[value.end_lineno - 1] + len(end_line.encode()[:value.end_col_offset].decode())
            literal = text[start:end]
            last_row = text.split("\n")[value.end_lineno - 1]
            if not LITERAL.match(literal) or "\\N{" in literal or not PROMPT_NAME.search(stmt.targets[0].id) \
                    or SUPPRESSION.search(last_row):
                continue
            hosts.append(Host(path, path.relative_to(src).as_posix(), stmt.targets[0].id, stmt.lineno, start, end))
            break
        if len(hosts) >= limit:
            break
    return hosts


# --------------------------------------------------------------------------- mutation
def mutate(host: Host, defect: str, index: int) -> Mutant:
    text = host.path.read_text(encoding="utf-8")
    file = f"m{index:03d}_{defect}.py"
    regions = []
    if defect == "time":
        literal = text[host.start:host.end]
        prefix, quote = LITERAL.match(literal).groups()
        body = literal[len(prefix) + 3:-3].replace("{", "{{").replace("}", "}}")
        lead = re.match(r"\\\n|\n", body)  # a line continuation or break right after the quotes
        cut = lead.end() if lead else 0
        indent = re.match(r"[ \t]*", body[cut:]).group()  # the time line as indented as the text
        new_literal = f"{prefix}f{quote}{body[:cut]}{indent}{TIME_LINE}{body[cut:]}{quote}"
        stmt_start = sum(len(line) + 1 for line in text.split("\n")[:host.row - 1])
        head = text[:stmt_start] + "import datetime as _pl_dt\n" + text[stmt_start:host.start] + new_literal
        regions.append((host.row, head.count("\n") + 1))  # the import line through the literal's end
        text = head + text[host.end:]
    if not text.endswith("\n"):
        text += "\n"
    first_appended = text.count("\n") + 1
    text += "\n\n" + APPENDED[defect].replace("@NAME@", host.name)
    regions.append((first_appended, text.count("\n") + 1))
    return Mutant(host, defect, file, text, regions)


# --------------------------------------------------------------------------- running promptlint
def run(promptlint: list[str], args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    result = subprocess.run([*promptlint, *args], cwd=cwd, capture_output=True, text=True)
    if result.returncode not in (0, 1) or "Traceback" in result.stderr:
        raise SystemExit(f"promptlint {' '.join(args)} failed ({result.returncode}):\n{result.stderr[-3000:]}")
    return result


def findings(promptlint: list[str], folder: Path) -> dict[str, list[dict]]:
    out = run(promptlint, ["check", "--output-format", "json", "--exit-zero", "."], folder)
    by_file: dict[str, list[dict]] = {}
    for diag in json.loads(out.stdout)["diagnostics"]:
        by_file.setdefault(Path(diag["filename"]).name, []).append(diag)
    return by_file


def in_regions(row: int, regions) -> bool:
    return any(a <= row <= b for a, b in regions)


def only_injected_lines_changed(old: str, new: str, regions) -> bool:
    matcher = difflib.SequenceMatcher(None, old.split("\n"), new.split("\n"), autojunk=False)
    for tag, i1, i2, _, _ in matcher.get_opcodes():
        if tag == "equal":
            continue
        rows = range(i1 + 1, i2 + 1) if i2 > i1 else [i1 + 1 if i1 else 1]
        if not all(in_regions(r, regions) or (i2 == i1 and in_regions(r - 1, regions)) for r in rows):
            return False
    return True


def compiles(data: bytes) -> bool:
    try:
        compile(data, "mutant.py", "exec")
    except (SyntaxError, ValueError):
        return False
    return True


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def kill_midway(promptlint: list[str], work: Path, folder: Path, after: int, old: dict, new: dict) -> dict:
    """Run `fix` on a fresh copy and SIGKILL it once `after` files changed; then compare."""
    if folder.exists():
        shutil.rmtree(folder)
    shutil.copytree(work, folder)
    proc = subprocess.Popen([*promptlint, "fix", "--unsafe-fixes", "."], cwd=folder,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    killed = False
    while proc.poll() is None:
        changed = sum(1 for name, data in old.items() if (folder / name).exists()
                      and (folder / name).read_bytes() != data)
        if changed >= after:
            proc.send_signal(signal.SIGKILL)
            killed = True
            break
        time.sleep(0.005)  # a benchmark, not a test: polling for the moment to kill
    proc.wait()
    now = snapshot(folder)
    bad = [n for n, data in old.items() if now.get(n) not in (data, new.get(n))]
    temps = [n for n in now if n.endswith(".promptlint.tmp")]
    changed = sum(1 for n, data in old.items() if now.get(n) != data)
    return {"after": after, "killed": killed, "changed": changed, "bad": bad, "temps": len(temps)}


# --------------------------------------------------------------------------- main
def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/promptlint-mutation"))
    parser.add_argument("--max-hosts", type=int, default=40)
    parser.add_argument("--promptlint", default=f"{shlex.quote(sys.executable)} -m promptlint")
    args = parser.parse_args()
    promptlint = shlex.split(args.promptlint)
    work_root = args.work
    src = download(work_root)
    hosts = find_hosts(src, args.max_hosts * 3)

    base = work_root / "base"
    shutil.rmtree(base, ignore_errors=True)
    base.mkdir()
    for i, host in enumerate(hosts):
        shutil.copy(host.path, base / f"m{i:03d}_base.py")
    before_fix = snapshot(base)
    run(promptlint, ["fix", "--unsafe-fixes", "."], base)
    after_fix = snapshot(base)
    own_fixes = {i for i in range(len(hosts)) if before_fix.get(f"m{i:03d}_base.py") != after_fix.get(f"m{i:03d}_base.py")}
    for name, data in before_fix.items():
        (base / name).write_bytes(data)
    base_findings = findings(promptlint, base)
    chosen = [(i, h) for i, h in enumerate(hosts) if i not in own_fixes][: args.max_hosts]

    work = work_root / "mutants"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    mutants = [mutate(h, d, i) for i, h in chosen for d in EXPECTED]
    for m in mutants:
        (work / m.file).write_text(m.text, encoding="utf-8")
    broken = [m.file for m in mutants if not compiles(m.text.encode())]

    found_by = findings(promptlint, work)
    found = {m.file for m in mutants if any(d["code"] in EXPECTED[m.defect] and in_regions(d["location"]["row"], m.regions)
                                            for d in found_by.get(m.file, []))}

    fixed_dir = work_root / "fixed"
    shutil.rmtree(fixed_dir, ignore_errors=True)
    shutil.copytree(work, fixed_dir)
    started = time.perf_counter()
    run(promptlint, ["fix", "--unsafe-fixes", "."], fixed_dir)
    fix_seconds = time.perf_counter() - started
    after = snapshot(fixed_dir)
    after_findings = findings(promptlint, fixed_dir)
    compiling = [m.file for m in mutants if compiles(after[m.file])]

    def count(diags, codes):
        return sum(1 for d in diags if d["code"] in codes)
    fixed = {m.file for m in mutants if m.file in found and count(after_findings.get(m.file, []), EXPECTED[m.defect])
             <= count(base_findings.get(f"{m.file.split('_')[0]}_base.py", []), EXPECTED[m.defect])}
    clean_diff = [m.file for m in mutants if only_injected_lines_changed(m.text, after[m.file].decode(), m.regions)]
    changed_files = [m.file for m in mutants if after[m.file] != m.text.encode()]

    run(promptlint, ["fix", "--unsafe-fixes", "."], fixed_dir)
    second = snapshot(fixed_dir)
    second_changes = [n for n in after if second.get(n) != after[n]]

    old = {m.file: m.text.encode() for m in mutants}
    kills = [kill_midway(promptlint, work, work_root / "killed", k, old, after)
             for k in (1, 5, max(2, len(changed_files) // 2))]

    per_defect = {d: [m for m in mutants if m.defect == d] for d in EXPECTED}
    print(f"hosts: {len(chosen)} prompt constants in {len({h.rel.split('/')[0] for _, h in chosen})} packages "
          f"({len(own_fixes)} host files left out: `fix` changes them unmutated); mutants that do not compile: {len(broken)}")
    print(f"fix --unsafe-fixes over {len(mutants)} files: {fix_seconds:.1f} s\n")
    print("| defect | injected | found | fixed | files compiling | only injected lines changed | second-run changes |")
    print("|---|---|---|---|---|---|---|")
    for defect, ms in [*per_defect.items(), ("all", mutants)]:
        names = {m.file for m in ms}
        print(f"| {defect} | {len(ms)} | {len(names & found)} | {len(names & fixed)} | "
              f"{len(names & set(compiling))} | {len(names & set(clean_diff))} | {len(names & set(second_changes))} |")
    print("\n| SIGKILL after | files changed when killed | files neither old nor new | temporary files left |")
    print("|---|---|---|---|")
    for k in kills:
        print(f"| {k['after']} file(s) changed{'' if k['killed'] else ' (run ended first)'} | {k['changed']} | "
              f"{len(k['bad'])} | {k['temps']} |")
    missed = sorted(set(m.file for m in mutants) - found)
    unfixed = sorted(found - fixed)
    dirty = sorted(set(m.file for m in mutants) - set(clean_diff))
    for label, names in (("not found", missed), ("found, not fixed", unfixed), ("changed outside the injection", dirty),
                         ("not compiling", sorted(set(m.file for m in mutants) - set(compiling)))):
        if names:
            print(f"\n{label}: {', '.join(names[:30])}{' ...' if len(names) > 30 else ''}")
    print(f"\nwork folder: {work_root} (mutants/, fixed/, killed/)")
    ok = not broken and len(found) == len(mutants) and len(compiling) == len(mutants) and not second_changes \
        and not dirty and all(not k["bad"] for k in kills)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
