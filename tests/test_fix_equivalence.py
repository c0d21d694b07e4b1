"""Fixes keep prompts meaning the same: execute our own small prompt builders
(`fixtures/fix_equivalence/`, never a user's code) before and after a fix.

Safe fixes (PRM201-PRM203) give the same information (equal after json.loads / yaml.safe_load,
equal as multisets of lines / tools) and, after the fix, the same bytes whatever order the input
arrived in. Unsafe moves (PRM101-PRM103) give the same lines in a new order.
"""
from __future__ import annotations

import itertools
import json
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import libcst as cst
import yaml

from promptlint.fix import apply_edits
from promptlint.model import Applicability

from cst_support import fixes, module_from_source, nodes

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "fix_equivalence"


def fixed(name: str, select, build, applicability=Applicability.SAFE) -> tuple[str, str]:
    """(source, fixed source) of a fixture; the fix is idempotent and the result compiles."""
    source = (FIXTURES / name).read_text()
    module = module_from_source(source)
    fix = build(module, select(module))
    assert fix is not None and fix.applicability is applicability
    new = apply_edits(source, fix.edits)
    compile(new, name, "exec")
    again = module_from_source(new)
    assert build(again, select(again)) is None
    return source, new


def load(source: str, name: str):
    """Execute a fixture's source (our own code) and return the named function."""
    namespace: dict = {}
    exec(compile(source, "fixture.py", "exec"), namespace)
    return namespace[name]


def first_call(name):
    return lambda m: nodes(m, cst.Call, lambda m, n: m.qualified_name(n.func) == name)[0]


def permutations_of(mapping: dict) -> list[dict]:
    return [dict(order) for order in itertools.permutations(mapping.items())]


# --- safe fixes: same information, now deterministic ------------------------------------------

def test_prm201_json_sort_keys_same_data_same_bytes():
    source, new = fixed("json_record.py", first_call("json.dumps"), lambda m, n: fixes.sort_keys_fix(m, n, string_keys=True))
    assert "sort_keys=True" in new
    before, after = load(source, "build_system"), load(new, "build_system")
    record = {"plan": "pro", "id": 7, "address": {"city": "Oslo", "zip": "0150"}, "tags": ["a"]}
    outputs_before = [before(r) for r in permutations_of(record)]
    outputs_after = [after(r) for r in permutations_of(record)]
    assert len(set(outputs_before)) > 1  # the fault: insertion order leaks into the prompt
    assert len(set(outputs_after)) == 1
    split = lambda text: (text[: text.index("{")], json.loads(text[text.index("{"):]))
    for b, a in zip(outputs_before, outputs_after):
        assert split(b) == split(a)


def test_prm201_yaml_sort_keys_same_data_same_bytes():
    source, new = fixed("yaml_profile.py", first_call("yaml.safe_dump"), fixes.sort_keys_fix)
    before, after = load(source, "build_system"), load(new, "build_system")
    profile = {"name": "Ada", "role": "admin", "locale": "en"}
    outputs_after = {after(p) for p in permutations_of(profile)}
    assert len({before(p) for p in permutations_of(profile)}) > 1 and len(outputs_after) == 1
    for p in permutations_of(profile):
        assert yaml.safe_load(before(p)[len("Profile:\n"):]) == yaml.safe_load(after(p)[len("Profile:\n"):])


def test_prm202_sorted_set_same_tags_same_bytes():
    join = lambda m: nodes(m, cst.Call, lambda m, n: m.code(n.func) == '", ".join')[0]
    source, new = fixed("tag_set.py", join, fixes.wrap_sorted_fix)
    assert '", ".join(sorted(unique))' in new
    before, after = load(source, "build_system"), load(new, "build_system")
    tags = ["billing", "urgent", "refund", "vip", "billing"]
    tag_counts = lambda text: Counter(text.split("\n")[0].removeprefix("Known tags: ").split(", "))
    outputs_after = set()
    for order in itertools.permutations(tags):
        b, a = before(list(order)), after(list(order))
        assert tag_counts(b) == tag_counts(a)
        assert b.split("\n")[1:] == a.split("\n")[1:]
        outputs_after.add(a)
    assert outputs_after == {"Known tags: billing, refund, urgent, vip\nAnswer briefly."}


def test_prm202_sorted_listdir_same_lines(tmp_path):
    source, new = fixed("doc_index.py", first_call("os.listdir"), fixes.wrap_sorted_fix)
    for name in ["zeta.md", "alpha.md", "mid.md", "beta.md"]:
        (tmp_path / name).write_text("x")
    before, after = load(source, "build_system"), load(new, "build_system")
    b, a = before(str(tmp_path)), after(str(tmp_path))
    assert Counter(b.split("\n")) == Counter(a.split("\n"))
    assert a == "Documents you can cite:\n- alpha.md\n- beta.md\n- mid.md\n- zeta.md"


def test_prm203_sorted_openai_tools_same_tools_same_order():
    returned = lambda m: nodes(m, cst.Return)[0]
    build = lambda m, r: fixes.sort_tools_fix(m, r, nested=True)
    source, new = fixed("tool_registry.py", returned, build)
    assert 'return sorted(collected, key=lambda t: (t.get("function", {}).get("name", ""), t.get("type", "")))' in new
    before, after = load(source, "build_tools"), load(new, "build_tools")
    registry = {"search": "Search the web", "add": "Add numbers", "lookup": "Find a customer"}
    canonical = lambda tools: Counter(json.dumps(t, sort_keys=True) for t in tools)
    outputs_after = []
    for order in permutations_of(registry):
        assert canonical(before(order)) == canonical(after(order))
        outputs_after.append(json.dumps(after(order)))
    assert len(set(outputs_after)) == 1
    assert [t["function"]["name"] for t in after(registry)] == ["add", "lookup", "search"]


def test_prm203_sorted_mcp_tool_objects_and_flat_dicts():
    listed = lambda names: SimpleNamespace(tools=[SimpleNamespace(name=n) for n in names])
    names = ["write_file", "list_dir", "read_file"]

    by_return = lambda m: nodes(m, cst.Return)[0]
    source, new = fixed("mcp_tools.py", by_return, lambda m, r: fixes.sort_tools_fix(m, r, objects=True))
    before, after = load(source, "build_tools"), load(new, "build_tools")
    for order in itertools.permutations(names):
        server = listed(order)
        assert Counter(id(t) for t in before(server)) == Counter(id(t) for t in after(server))
        assert [t.name for t in after(server)] == sorted(names)

    comprehension = lambda m: nodes(m, cst.ListComp)[0]
    source, new = fixed("mcp_tools.py", comprehension, fixes.sort_tools_fix)
    before, after = load(source, "build_anthropic_tools"), load(new, "build_anthropic_tools")
    for order in itertools.permutations(names):
        b, a = before(listed(order)), after(listed(order))
        assert Counter(json.dumps(t) for t in b) == Counter(json.dumps(t) for t in a)
        assert [t["name"] for t in a] == sorted(names)


# --- unsafe moves: same segments, new order ----------------------------------------------------

def test_prm102_move_timestamp_line_same_lines_new_order():
    now = lambda m: [n for n in nodes(m, cst.Name) if n.value == "now"][-1]
    source, new = fixed("clock_header.py", now, fixes.move_to_end_fix, Applicability.UNSAFE)
    before, after = load(source, "build_system"), load(new, "build_system")
    b, a = before("2024-05-01 10:00"), after("2024-05-01 10:00")
    assert b != a and Counter(b.split("\n")) == Counter(a.split("\n"))
    assert a.split("\n") == ["You are a scheduling assistant.", "Always answer in English.",
                             "Never book meetings on weekends.",
                             "The current time is 2024-05-01 10:00.", ""]
    # the static prefix no longer depends on the time
    assert before("a")[:60] != before("b")[:60] and after("a")[:60] == after("b")[:60]


def test_prm103_move_request_id_operand_same_segments_new_order():
    rid = lambda m: [n for n in nodes(m, cst.Name) if n.value == "request_id"][-1]
    source, new = fixed("request_concat.py", rid, fixes.move_to_end_fix, Applicability.UNSAFE)
    before, after = load(source, "build_system"), load(new, "build_system")
    b, a = before("req-1"), after("req-1")
    assert Counter(b.split("\n")) == Counter(a.split("\n"))
    assert a == ("You are a billing assistant.\nOnly discuss invoices.\nRefuse anything else.\n"
                 "Request: req-1\n")
