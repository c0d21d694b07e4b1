"""End to end: the order of dicts filled by key in a loop (`deps[edge.name] = result` over a set),
of the sets a dict holds (`values[f] = set()`, read back as `list(values[f])[:20]`), of a dict's
entries unpacked in a loop (`for field, text in out.items()`), of a `defaultdict(set)`, and of a list sorted in place
(`tools.sort()`), reported where the order is lost; the same code with the order fixed by
`sorted(...)` stays clean."""
from __future__ import annotations

from analysis_support import pos, write

from promptlint.api import check

HEAD = """
    import json
    from pathlib import Path
    from openai import OpenAI

    client = OpenAI()
    RULES = ("You are a careful assistant. Follow every rule, cite sources and answer precisely. " * 80)


    def send(text, history):
        return client.chat.completions.create(
            model="gpt-4.1", messages=[{"role": "system", "content": RULES + text + RULES}, *history])
"""


def order_findings(root, monkeypatch, source: str) -> list[tuple]:
    """(rule, row, column, severity) of the PRM201-203 findings of a project of one file."""
    write(root, {"app.py": source})
    monkeypatch.chdir(root)
    return [(d.code, d.span.start.row, d.span.start.column, d.severity.value)
            for d in check(["."]).diagnostics if d.code in ("PRM201", "PRM202", "PRM203")]


KEYED = HEAD + """

    def node_input(edges: set, node, history):
        deps = {}
        for edge in edges:
            if edge.to_node == node:
                deps[edge.from_node] = edge.result
        text = "\\n".join(f"From {k}: {v}" for k, v in deps.items())
        return send(text, history)
"""


def test_a_dict_filled_by_key_in_a_loop_over_a_set_is_in_the_sets_order(tmp_path, monkeypatch):
    at = pos(KEYED, "edges:\n")
    assert order_findings(tmp_path, monkeypatch, KEYED) == [("PRM202", at.row, at.column, "warning")]


def test_the_same_dict_filled_in_sorted_order_is_clean(tmp_path, monkeypatch):
    source = KEYED.replace("for edge in edges:", "for edge in sorted(edges, key=str):")
    assert order_findings(tmp_path, monkeypatch, source) == []


SETS = HEAD + """

    def field_values(docs, fields: list[str]) -> dict:
        values = {}
        for f in fields:
            values[f] = set()
        for d in docs:
            for f in fields:
                values[f].add(d[f])
        out = {}
        for f in fields:
            vals = list(values[f])
            vals = vals[:20]
            out[f] = ", ".join(str(v) for v in vals)
        return out


    def schema(docs, fields: list[str], history):
        described = {}
        for field, listed in field_values(docs, fields).items():
            described[field] = {"values": listed}
        return send(json.dumps(described, sort_keys=True), history)
"""


def test_a_set_kept_in_a_dict_and_cut_is_reported_at_the_cut(tmp_path, monkeypatch):
    # sort_keys sorts the fields, not the values listed in each: still in the sets' order
    at = pos(SETS, "vals[:20]")
    assert order_findings(tmp_path, monkeypatch, SETS) == [("PRM202", at.row, at.column, "warning")]


def test_a_set_kept_in_a_dict_and_sorted_before_the_cut_is_clean(tmp_path, monkeypatch):
    source = SETS.replace("list(values[f])", "sorted(values[f])")
    assert order_findings(tmp_path, monkeypatch, source) == []


NESTED = HEAD + """

    def schema(columns, history):
        fields = set(columns)
        described = {}
        for field in sorted(fields):
            described[field] = {}
        for field in sorted(fields):
            described[field]["values"] = ", ".join(set(columns[field]))
        return send(json.dumps(described), history)
"""


def test_a_value_set_into_an_item_of_a_dict_keeps_its_order(tmp_path, monkeypatch):
    at = pos(NESTED, 'set(columns[field])')
    assert order_findings(tmp_path, monkeypatch, NESTED) == [("PRM202", at.row, at.column, "warning")]


def test_a_dict_filled_by_key_in_a_fixed_order_is_clean(tmp_path, monkeypatch):
    source = NESTED.replace('", ".join(set(columns[field]))', '", ".join(columns[field])')
    assert order_findings(tmp_path, monkeypatch, source) == []


GROUPED = HEAD + """
    from collections import defaultdict


    def communities(pairs):
        levels = defaultdict(set)
        for level, key in pairs:
            levels[level].add(key)
        return dict(levels)


    def report(pairs, history):
        subs = [c for c in communities(pairs)[1] if c]
        return send("\\n".join(subs), history)
"""


def test_a_defaultdict_of_sets_read_back_is_in_the_sets_order(tmp_path, monkeypatch):
    at = pos(GROUPED, "communities(pairs)[1]")
    assert order_findings(tmp_path, monkeypatch, GROUPED) == [("PRM202", at.row, at.column, "warning")]


def test_a_defaultdict_of_lists_keeps_the_order_appended(tmp_path, monkeypatch):
    source = GROUPED.replace("defaultdict(set)", "defaultdict(list)").replace(".add(key)", ".append(key)")
    assert order_findings(tmp_path, monkeypatch, source) == []


DISCOVERED = HEAD + """

    PLUGINS = Path(__file__).parent / "plugins"


    def discover():
        found = []
        for p in PLUGINS.glob("*.py"):
            found.append({"type": "function", "function": {"name": p.stem, "description": "A plugin tool."}})
        found.sort(key=lambda t: t["function"]["name"])
        return found


    def run(history):
        return client.chat.completions.create(model="gpt-4.1", messages=history, tools=discover())
"""


def test_a_list_sorted_in_place_is_in_a_fixed_order(tmp_path, monkeypatch):
    assert order_findings(tmp_path, monkeypatch, DISCOVERED) == []


def test_the_same_list_left_unsorted_is_reported(tmp_path, monkeypatch):
    source = DISCOVERED.replace('        found.sort(key=lambda t: t["function"]["name"])\n', "")
    at = pos(source, 'PLUGINS.glob("*.py")')
    assert order_findings(tmp_path, monkeypatch, source) == [("PRM203", at.row, at.column, "warning")]


def test_a_list_rewritten_by_index_keeps_its_binding(tmp_path):
    # `formatted[idx] = {...}` in a loop writes a list, not a dict filled by key: the name stays
    # bound to the parameter (what reads a conversation parameter's binding still sees one)

    from analysis_support import code, evaluator
    source = code("""
        def summary(formatted: list[dict], rows: list):
            table = {}
            for idx, msg in enumerate(formatted):
                formatted[idx] = {"role": "user", "content": msg}
                table[idx] = set(rows)
            return formatted, table
    """)
    write(tmp_path, {"app.py": source})
    ev = evaluator(tmp_path)
    module = ev.project.load(tmp_path / "app.py")
    func = module.tree.body[0]
    frame = ev.function_frame(module, func, None)
    env = ev.env_at(frame, func.body[-1])
    assert (env["formatted"].kind, env["table"].kind) == ("param", "setkey")
