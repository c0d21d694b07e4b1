"""Process time and a fingerprint of the results of eight module fact finders over every .py file of a tree.

Run it once per code copy (PYTHONPATH=COPY python benchmarks/finders.py TREE OUT.json) and compare the
fingerprints of two copies: equal fingerprints mean the same node kinds and positions from every finder
on every file (benchmarks/README.md, thirty-sixth session). No project is given and `covered` is always
False, so the cross-module parts of the finders are not exercised. Prints the files read and the seconds
per finder; writes them with the fingerprints to OUT.json.
"""
import sys, time, ast, json, hashlib
from pathlib import Path
from promptlint.python.module import load
from promptlint.python import (history_loads, window_calls, handed_windows, tool_followups, model_conditions,
                               rebound_windows, class_toolsets, tool_selectors)
root = Path(sys.argv[1]); out = sys.argv[2]
def pos(x):
    if isinstance(x, ast.AST):
        return (type(x).__name__, getattr(x, "lineno", None), getattr(x, "col_offset", None), getattr(x, "end_lineno", None), getattr(x, "end_col_offset", None), getattr(x, "arg", None))
    if isinstance(x, (list, tuple)):
        return [pos(y) for y in x]
    if hasattr(x, "__dataclass_fields__"):
        return {k: pos(getattr(x, k)) for k in x.__dataclass_fields__}
    if isinstance(x, (str, int, float, bool)) or x is None:
        return x
    if isinstance(x, (set, frozenset)):
        return sorted(map(str, x))
    return repr(type(x))
no = lambda span: False
finders = {
    "history_windows": lambda m: history_loads.history_windows(m, None),
    "window_calls": lambda m: window_calls.window_calls(m, None),
    "handed_windows": lambda m: handed_windows.handed_windows(m, no),
    "tool_followups": lambda m: tool_followups.find_tool_followups(m),
    "model_conditions": lambda m: model_conditions.find_model_conditions(m),
    "rebound_windows": lambda m: rebound_windows.rebound_windows(m, no),
    "class_tool_changes": lambda m: class_toolsets.find_class_tool_changes(m, {}),
    "tool_selections": lambda m: tool_selectors.find_tool_selections(m),
}
times = dict.fromkeys(finders, 0.0); prints = {k: hashlib.sha256() for k in finders}; n = 0
for path in sorted(root.rglob("*.py")):
    try:
        src = path.read_text(encoding="utf-8")
        m = load(path, src)
    except Exception:
        continue
    n += 1
    for k, f in finders.items():
        t = time.process_time(); r = f(m); times[k] += time.process_time() - t
        prints[k].update((str(path) + json.dumps(pos(r), default=str)).encode())
json.dump({"files": n, "times": times, "prints": {k: h.hexdigest() for k, h in prints.items()}}, open(out, "w"), indent=1)
print(n, {k: round(v, 2) for k, v in times.items()}, round(sum(times.values()), 2))
