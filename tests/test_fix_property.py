"""Property tests (hypothesis): fixes built from CST nodes keep generated code parsing, compiling
and meaning the same, whatever the call shape (arguments, trailing commas, comments, line breaks,
nested calls, generator arguments)."""
from __future__ import annotations

import ast
import copy
import os
from collections import Counter

import libcst as cst
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from promptlint.fix import apply_edits

from cst_support import fixes, module_from_source

# PROMPTLINT_FIX_EXAMPLES=3000 for a longer local run
PROFILE = settings(max_examples=int(os.environ.get("PROMPTLINT_FIX_EXAMPLES", "150")), deadline=None)


def cst_nodes(module, kind) -> list:
    found = []

    class Finder(cst.CSTVisitor):
        def on_visit(self, node):
            if isinstance(node, kind):
                found.append(node)
            return True

    module.tree.visit(Finder())
    return found


def compiles(source: str) -> bool:
    try:
        compile(source, "example.py", "exec")
    except SyntaxError:
        return False
    return True


# --- call shapes for PRM201 --------------------------------------------------------------------

ATOMS = ["data", "data[0]", "(a, b)", "f(y)", "{'k': v}", "[1, 2]", "x if c else y", "lambda q: q",
         "g(h(z), k=1)", "(n for n in m)", "obj.attr", "'text'", "json.dumps(inner)", "a + b",
         "(\n    data\n)", "[\n    1,  # one\n    2,\n]"]
KEYWORDS = ["indent=2", "ensure_ascii=False", "default=str", "separators=(',', ':')", "cls=Enc",
            "sort_keys=False", "check_circular=json.dumps(x) == ''"]
SEPARATORS = [", ", ",", " , ", ",\n    ", ",  # note\n    ", "\n    , ", ",\\\n    "]
OPENERS = ["", " ", "\n    ", "  # start\n    "]
CLOSERS = ["", " ", "\n", "  # end\n"]
TRAILING = ["", ",", ", ", ",  # last\n"]
CONTEXTS = ["x = @\n", "f(@, y)\n", "def g():\n    return (@)\n", "y = [@ for q in r]\n", "z = (@)\n",
            "w = a + @\n", "v = {'k': @}\n", "if @:\n    pass\n", "class C:\n    s = @\n"]


@st.composite
def dumps_calls(draw):
    opener, closer = draw(st.sampled_from(OPENERS)), draw(st.sampled_from(CLOSERS))
    if draw(st.integers(0, 9)) == 0:  # a lone generator argument shares the call's parentheses
        body = opener + "row for row in rows" + closer
    else:
        args = draw(st.lists(st.sampled_from(ATOMS), max_size=3))
        if draw(st.booleans()):
            args.append("*extra")
        args += draw(st.lists(st.sampled_from(KEYWORDS), max_size=3, unique_by=lambda k: k.split("=")[0]))
        if draw(st.booleans()):
            args.append("**options")
        if not args:
            body = opener + closer
        else:
            body = args[0]
            for arg in args[1:]:
                body += draw(st.sampled_from(SEPARATORS)) + arg
            body = opener + body + draw(st.sampled_from(TRAILING)) + closer
    call = "json.dumps(" + body + ")"
    return "import json\n" + draw(st.sampled_from(CONTEXTS)).replace("@", call)


def dumps_in_ast(tree: ast.AST) -> list[ast.Call]:
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and ast.unparse(n.func) == "json.dumps"]
    return sorted(calls, key=lambda n: (n.lineno, n.col_offset))


def expected_after_sort_keys(tree: ast.Module, index: int) -> str:
    """The original AST with call `index` given `sort_keys=True`, the way the fix should."""
    tree = copy.deepcopy(tree)
    call = dumps_in_ast(tree)[index]
    true = ast.Constant(True)
    for keyword in call.keywords:
        if keyword.arg == "sort_keys":
            keyword.value = true
            return ast.dump(tree)
    mapping = next((i for i, k in enumerate(call.keywords) if k.arg is None), len(call.keywords))
    call.keywords.insert(mapping, ast.keyword("sort_keys", true))
    return ast.dump(tree)


@PROFILE
@given(dumps_calls())
def test_sort_keys_fix_keeps_every_call_shape_valid_and_changes_only_the_keyword(source):
    assume(compiles(source))
    module = module_from_source(source)
    calls = [c for c in cst_nodes(module, cst.Call) if module.qualified_name(c.func) == "json.dumps"]
    original = ast.parse(source)
    assert len(calls) == len(dumps_in_ast(original))
    for index, call in enumerate(calls):
        fix = fixes.sort_keys_fix(module, call)
        assert fix is not None, source
        new = apply_edits(source, fix.edits)
        assert compiles(new), new
        assert ast.dump(ast.parse(new)) == expected_after_sort_keys(original, index), new
        again = module_from_source(new)
        call_again = [c for c in cst_nodes(again, cst.Call)
                      if again.qualified_name(c.func) == "json.dumps"][index]
        assert fixes.sort_keys_fix(again, call_again) is None


# --- iterables for PRM202 ----------------------------------------------------------------------

ITERABLES = ["tags", "set(a) | b", "(t for t in s)", "os.listdir(p)", "{'x', 'y'}", "d.keys()",
             "(tags)", "a if c else b", "[*s]", "f(\n    s,\n)", "(  # why\n    s\n)", "glob.glob('*.md')"]
ITER_CONTEXTS = ['x = ", ".join(@)\n', "for v in @:\n    pass\n", "y = [v for v in @]\n",
                 "z = list(@)\n", "w = {v: 1 for v in @}\n", "def g():\n    return '\\n'.join(@)\n",
                 "u = [*@]\n"]


@PROFILE
@given(st.sampled_from(ITERABLES + ["BARE"]), st.sampled_from(ITER_CONTEXTS))
def test_wrap_sorted_fix_means_sorted_of_the_same_iterable(iterable, context):
    if iterable == "BARE":  # a generator that shares the join call's parentheses
        context, iterable = '", ".join(@)\n', "t.upper() for t in tags"
    source = "import os, glob\n" + context.replace("@", iterable)
    assume(compiles(source))
    start = source.index("@") if "@" in source else len("import os, glob\n") + context.index("@")
    module = module_from_source(source)
    target = [n for n in cst_nodes(module, cst.BaseExpression)
              if "".join(module.tree.code_for_node(n).split()) == "".join(iterable.split())
              and fixes._extent(module, n)[0].column - 1 == start - source.rfind("\n", 0, start) - 1]
    fix = fixes.wrap_sorted_fix(module, target[0])
    new = apply_edits(source, fix.edits)
    expected = "import os, glob\n" + context.replace("@", f"sorted({iterable})")
    assert compiles(new) and "joinsorted" not in new
    assert ast.dump(ast.parse(new)) == ast.dump(ast.parse(expected))


# --- the unsafe move: same lines, new order ----------------------------------------------------

LINE = st.one_of(st.sampled_from(["You are a helper.", "Rules: be brief.", "Tone: kind.", "- A list item."]),
                 st.sampled_from(["Now: {now}", "Id {uid}.", "{now} / {uid}"]))


def render(lines: list[str], style: str) -> str:
    if style == "triple":
        return 'p = f"""' + "".join(line + "\n" for line in lines) + '"""\n'
    if style == "triple-indented":
        body = "".join("    " + line + "\n" for line in lines)
        return 'def build(now, uid):\n    return f"""\n' + body + '    """\n\np = build(now, uid)\n'
    if style == "escaped":
        return 'p = f"' + "".join(line + "\\n" for line in lines) + '"\n'
    pieces = [(f'f"{line}\\n"' if "{" in line else f'"{line}\\n"') for line in lines]
    joiner = "\n    + " if style == "plus" else "\n    "
    return "p = (\n    " + joiner.join(pieces) + "\n)\n"


def evaluate(source: str) -> list[str]:
    """Run our own generated module and return the prompt's lines."""
    namespace = {"now": "2024-05-01T10:00", "uid": "u-42"}
    exec(compile(source, "example.py", "exec"), namespace)
    return [line.strip() for line in namespace["p"].split("\n") if line.strip()]


@PROFILE
@given(st.lists(LINE, min_size=1, max_size=6),
       st.sampled_from(["triple", "triple-indented", "escaped", "plus", "implicit"]))
def test_move_to_end_fix_reorders_lines_and_converges(lines, style):
    source = render(lines, style)
    before = evaluate(source)
    for _ in range(3 * len(lines) + 1):
        module = module_from_source(source)
        found = [fixes.move_to_end_fix(module, n) for n in cst_nodes(module, cst.Name)
                 if n.value in ("now", "uid") and isinstance(module.positions.get(n), object)]
        found = [f for f in found if f is not None]
        if not found:
            break
        source = apply_edits(source, found[0].edits)
        assert compiles(source), source
    else:
        raise AssertionError(f"did not converge: {source}")
    after = evaluate(source)
    assert Counter(after) == Counter(before)
    static = [line for line in before if "2024" not in line and "u-42" not in line]
    assert after[: len(static)] == static  # static text first, in its order; volatile after
