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
