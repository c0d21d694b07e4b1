"""Each kind of value of the lattice (values.py) used as text and through the operations that
combine them: Alt through `.format` and `join`, Seq through `+`, Mapping, PathV, Obj, Func and
ClassRef as text (what they cannot tell is unknown, never a guess)."""
from __future__ import annotations

from analysis_support import probe

from promptlint.model import Kind, Volatility
from promptlint.python.flow.values import Alt, ClassRef, Func, Mapping, Obj, PathV, Seq, Spread

VALUES = """
    from pathlib import Path


    class Helper:
        pass


    def f(flag, history, topic):
        tmpl = "Hi {name}, welcome." if flag else "Hello {name}, welcome."
        probe(tmpl.format(name="Ada"))
        sep = ", " if flag else "; "
        probe(sep.join(["a", "b"]))
        probe(["x"] + ["y"])
        probe(["x"] + history)
        probe({"k": "v", "n": topic})
        probe({"k": "v"})
        probe(Path("/etc") / "prompts" / "system.md")
        probe(Helper)
        probe(Helper())
        probe(f)
"""


def test_an_alternative_template_is_formatted_variant_by_variant(tmp_path):
    p = probe(tmp_path, VALUES, index=0)
    assert isinstance(p.value, Alt)
    assert ["".join(s.text for s in o.segs) for o in p.value.options] == ["Hi Ada, welcome.", "Hello Ada, welcome."]
    # as text: the shared start and end, the difference between them conditional
    assert p.described == [("conditional", "unknown", "Hi"), ("text", " "), ("text", "Ada"),
                           ("text", ", welcome.")]  # "Hi" / "Hello": the differing words, whole


def test_an_alternative_separator(tmp_path):
    p = probe(tmp_path, VALUES, index=1)
    assert p.described == [("text", "a"), ("conditional", "unknown", ","), ("text", " "), ("text", "b")]


def test_lists_through_plus(tmp_path):
    known = probe(tmp_path, VALUES, index=2)
    assert isinstance(known.value, Seq) and [i.segs[0].text for i in known.value.items] == ["x", "y"]
    grown = probe(tmp_path, VALUES, index=3).value
    assert isinstance(grown.items[1], Spread) and grown.items[1].expr == "history"


def test_a_dict_as_text_changes_as_its_most_volatile_value(tmp_path):
    seg, = probe(tmp_path, VALUES, index=4).segs
    assert (seg.kind, seg.volatility, seg.expr) == (Kind.UNKNOWN, Volatility.UNKNOWN, "topic")
    static = probe(tmp_path, VALUES, index=5)
    assert isinstance(static.value, Mapping)
    seg, = static.segs
    assert (seg.kind, seg.volatility, seg.expr) == (Kind.UNKNOWN, Volatility.STABLE, "dict")


def test_a_static_path_is_its_text(tmp_path):
    p = probe(tmp_path, VALUES, index=6)
    assert isinstance(p.value, PathV)
    assert p.described == [("text", "/etc/prompts/system.md")]


def test_classes_instances_and_functions_as_text_are_unknown(tmp_path):
    cls = probe(tmp_path, VALUES, index=7)
    assert isinstance(cls.value, ClassRef) and cls.value.node.name == "Helper"
    instance = probe(tmp_path, VALUES, index=8)
    assert isinstance(instance.value, Obj) and instance.value.qualname == "instance:Helper"
    func = probe(tmp_path, VALUES, index=9)
    assert isinstance(func.value, Func) and func.value.node.name == "f"
    for p in (cls, instance, func):
        seg, = p.segs
        assert (seg.kind, seg.volatility) == (Kind.UNKNOWN, Volatility.UNKNOWN)


TABLE_GET = """
    NAMES = {"sonnet": "claude-3-5-sonnet", "haiku": "claude-3-haiku"}
    LIMITS = {"sonnet": 10, "haiku": 20}


    def f(name):
        probe(NAMES.get(name, name))
        probe(NAMES.get(name))
        probe(NAMES.get("haiku", name))
        probe(LIMITS.get(name, 5))
"""


def test_a_text_table_read_with_get_by_an_unknown_key_is_one_of_its_texts_or_the_default(tmp_path):
    p = probe(tmp_path, TABLE_GET, index=0)
    assert isinstance(p.value, Alt)
    texts = ["".join(s.text for s in o.segs) if all(s.is_static for s in o.segs) else None for o in p.value.options]
    assert texts == ["claude-3-5-sonnet", "claude-3-haiku", None]  # the default: the unknown name
    assert not isinstance(probe(tmp_path, TABLE_GET, index=1).value, Alt)  # no default: unknown (None)
    known = probe(tmp_path, TABLE_GET, index=2).value
    assert "".join(s.text for s in known.segs) == "claude-3-haiku"
    numbers = probe(tmp_path, TABLE_GET, index=3).value  # numbers are read as their text, as by NAMES[name]
    assert ["".join(s.text for s in o.segs) for o in numbers.options] == ["10", "20", "5"]


SPREAD = """
    def f(system, extra):
        base = {"model": "m"}
        if system:
            base["system"] = system
        probe({**base, "max_tokens": 5})
        probe({**base, **extra})
"""


def test_a_dict_set_in_branches_spread_into_a_display_gives_one_dict_per_branch(tmp_path):
    both = probe(tmp_path, SPREAD, index=0).value
    assert isinstance(both, Alt) and sorted(sorted(o.items) for o in both.options) == [
        ["max_tokens", "model"], ["max_tokens", "model", "system"]]
    merged = probe(tmp_path, SPREAD, index=1).value  # and keys of data we cannot see
    assert isinstance(merged, Alt) and sorted(sorted(o.items) for o in merged.options) == [["model"], ["model", "system"]]
    assert all(o.node is None for o in merged.options)


def test_variants_that_differ_by_values_not_known_are_one_unknown_value(tmp_path):
    """Text whose variants differ by values the analysis cannot read (two settings read from a
    file) is one value of unknown text, not 'present or absent by a condition'; variants of fixed
    text stay conditional."""
    src = """
        import json

        SETTINGS = json.loads(open("settings.json").read())


        def f(flag):
            who = SETTINGS["name"] if flag else SETTINGS["title"] + " team"
            probe(f"Project {who}: answer briefly.")
            probe(f"Project {'alpha' if flag else 'beta'}: answer briefly.")
    """
    unknown = probe(tmp_path, src, index=0)
    middle = [s for s in unknown.segs if not s.is_static]
    assert [(s.kind, s.volatility) for s in middle] == [(Kind.UNKNOWN, Volatility.STABLE)]
    assert "one of several values not known statically" in middle[0].evidence
    fixed = probe(tmp_path, src, index=1)
    assert [s.kind for s in fixed.segs if not s.is_static] == [Kind.CONDITIONAL]


def test_a_part_of_a_path_not_known_is_unknown_not_empty(tmp_path):
    """`.name` / `.stem` of a path built from data the analysis cannot read is unknown text, as the
    path is (it was an empty static text); of a known path, its text."""
    src = """
        from pathlib import Path


        def f(state):
            root = Path(state["root"])
            probe(f"Project {root.name}: answer briefly.")
            probe(f"Project {Path('/srv/acme/app.py').stem}: answer briefly.")
    """
    unknown = probe(tmp_path, src, index=0)
    assert [(s.kind, s.volatility, s.expr) for s in unknown.segs if not s.is_static] == [
        (Kind.UNKNOWN, Volatility.STABLE, "root.name")]
    assert "".join(s.text for s in probe(tmp_path, src, index=1).segs) == "Project app: answer briefly."
