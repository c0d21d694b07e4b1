"""`Module.late_import`: a name imported inside a function, read by name."""
from __future__ import annotations


def test_late_import_is_the_innermost_function_import():
    """`Module.late_import`: the dotted name a name stands for through an import inside the
    innermost function around a node (read once per module, by name)."""
    import ast
    from pathlib import Path

    from promptlint.python.module import load
    source = ("def outer():\n"                        # 1
              "    from pkg import templates\n"      # 2
              "    def inner():\n"                   # 3
              "        from other import templates\n"  # 4
              "        return templates.A\n"         # 5
              "    return templates.B\n"             # 6
              "def plain():\n"                       # 7
              "    return templates.C\n"             # 8
              "def third():\n"                       # 9
              "    import json as templates\n"       # 10
              "    return templates.D\n")            # 11
    module = load(Path("m.py"), source, dotted="m", filename="m.py")
    reads = {n.attr: n for n in ast.walk(module.tree)
             if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)}
    assert module.late_import("templates", reads["A"]) == "other.templates"
    # (the imports of a nested function count for the function around it too: `_late_imports`)
    assert module.late_import("templates", reads["B"]) == "other.templates"
    assert module.late_import("templates", reads["C"]) is None
    assert module.late_import("templates", reads["D"]) == "json"
    assert module.late_import("missing", reads["A"]) is None
    assert module.late_import("templates", module.tree) is None  # (no line: none)


def test_a_node_s_qualified_name_is_resolved_once(monkeypatch):
    """`Module.qualified_name` through the imports (also one inside a function), the plain dotted
    text of an unimported name, None for what is no dotted name; kept on the node: asked again,
    nothing is resolved again."""
    import ast
    from pathlib import Path

    from promptlint.python import module as module_mod
    from promptlint.python.module import load
    source = ("import datetime as dt\n"
              "def ask():\n"
              "    from pkg import templates\n"
              "    return dt.datetime.now(), templates.SYSTEM.format(), local.attr, (lambda: 1)()\n")
    module = load(Path("m.py"), source, dotted="m", filename="m.py")
    calls = [n for n in ast.walk(module.tree) if isinstance(n, ast.Call)]
    split: list = []
    real = module_mod.dotted_parts
    monkeypatch.setattr(module_mod, "dotted_parts", lambda expr: split.append(expr) or real(expr))
    for _ in range(3):
        assert [module.qualified_name(c.func) for c in calls] == [
            "datetime.datetime.now", "pkg.templates.SYSTEM.format", None]
        assert module.qualified_name(calls[0].args[0] if calls[0].args else calls[0].func.value) == "datetime.datetime"
    attr = next(n for n in ast.walk(module.tree) if isinstance(n, ast.Attribute) and n.attr == "attr")
    assert module.qualified_name(attr) == module.qualified_name(attr) == "local.attr"
    assert len(split) == len(calls) + 2  # each node resolved once
