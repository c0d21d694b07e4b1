"""Score a promptlint JSON report against hand labels.

usage: python3 score.py labels.toml report.json   (run from the PKG folder; report made with
`promptlint check src --no-cache --output-format json > now.json`)
"""
import json, sys, tomllib
from pathlib import Path

labels = tomllib.load(open(sys.argv[1], "rb"))
report = json.load(open(sys.argv[2]))
diags = [d for d in report["diagnostics"] if d["code"] not in ("PRM901", "PRM001")]

def norm(p):
    p = p.replace("\\", "/")
    return p[2:] if p.startswith("./") else p

def points(d):
    out = [(norm(d["filename"]), d["location"]["row"])]
    for r in d.get("related", []):
        out.append((norm(r["filename"]), r["location"]["row"]))
    if d.get("prompt"):
        f, _, row = d["prompt"].rpartition(":")
        out.append((norm(f), int(row)))
    return out

def hits(entry, d, slack=2):
    rows = [entry["line"]] + ([entry["prompt_line"]] if "prompt_line" in entry else []) + entry.get("also", [])
    f = norm(entry["file"])
    return any(pf == f and any(abs(pr - r) <= slack for r in rows) for pf, pr in points(d))

found = []
for e in labels.get("defect", []):
    m = [d for d in diags if hits(e, d)]
    found.append((e, m))
    status = "FOUND" if m else "MISSED"
    sev = ",".join(sorted({d["code"] + ":" + d["severity"][0] for d in m}))
    print(f"{status:6} {e['id']:14} {e['severity']:7} {e['file']}:{e['line']} [{e.get('kind','')}] {sev}")
n = len(found); k = sum(1 for _, m in found if m)
print(f"\ndefects found: {k}/{n}")
for sev in ("warning", "info"):
    sub = [(e, m) for e, m in found if e["severity"] == sev]
    print(f"  {sev}: {sum(1 for _, m in sub if m)}/{len(sub)}")
warns = [d for d in diags if d["severity"] == "warning"]
true_w = [d for d in warns if any(hits(e, d) for e in labels.get("defect", []))]
clean_w = [d for d in warns if any(hits(e, d, 0) for e in labels.get("clean", []))]
print(f"warnings: {len(warns)}, matching a labelled defect: {len(true_w)}, on a clean entry: {len(clean_w)}")
for d in warns:
    if d not in true_w:
        tag = "CLEAN" if d in clean_w else "UNLABELLED"
        print(f"  {tag} {d['code']} {d['filename']}:{d['location']['row']} {d['message'][:160]}")
infos = [d for d in diags if d["severity"] == "info"]
print(f"infos: {len(infos)}, matching a defect: {sum(1 for d in infos if any(hits(e, d) for e in labels.get('defect', [])))}")
