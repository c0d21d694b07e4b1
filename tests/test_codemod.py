"""The codemod layer: fixes built from anchors whose spans come from `ast`, as the analysis finds them.

Each test writes a real snippet to a file, finds the node with `ast` (its span converted from UTF-8
byte columns to 1-based character columns), builds the fix with `codemod.build(anchor)`, applies
it, compiles the result and builds again on the fixed file (nothing more to do: idempotence).
"""
from __future__ import annotations

import ast
import hashlib
import textwrap

import pytest

from promptlint import codemod, source
from promptlint.codemod import anchors, module as cm
from promptlint.fix import apply_edits
from promptlint.model import Anchor, Applicability, Position, Span
from promptlint.python.strings import Field, scan


def char_position(text: str, row: int, byte_col: int) -> Position:
    line = text.split("\n")[row - 1]
    return Position(row, len(line.encode("utf-8")[:byte_col].decode("utf-8")) + 1)


def ast_span(path, text: str, node: ast.AST) -> Span:
    return Span(str(path), char_position(text, node.lineno, node.col_offset),
                char_position(text, node.end_lineno, node.end_col_offset))


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def first(tree: ast.AST, kind, where=lambda n: True):
    found = sorted((n for n in ast.walk(tree) if isinstance(n, kind) and where(n)),
                   key=lambda n: (n.lineno, n.col_offset))
    return found[0]


def call_to(name):
    return lambda tree: first(tree, ast.Call, lambda n: ast.unparse(n.func) == name)


def write(tmp_path, text: str):
    path = tmp_path / "app.py"
    path.write_text(text, encoding="utf-8")
    return path


def fix_with(tmp_path, text, select, place, detail=(), expected_applicability=Applicability.SAFE):
    """(fix, new text) for the anchor of `select(tree)`; the result compiles and a second build
    on it gives no fix."""
    text = textwrap.dedent(text)
    path = write(tmp_path, text)
    tree = ast.parse(text)
    node = select(tree) if not isinstance(select, Span) else None
    span = ast_span(path, text, node) if node is not None else select
    fix = codemod.build(Anchor(span, place, tuple(detail), digest(text)))
    assert fix is not None, "no fix built"
    assert fix.applicability is expected_applicability
    assert fix.digest == digest(text)  # the text the edits were computed from
    new = apply_edits(text, fix.edits)
    compile(new, "app.py", "exec")
    path.write_text(new, encoding="utf-8")
    again = ast.parse(new)
    node2 = select(again) if not isinstance(select, Span) else None
    if node2 is not None:
        assert codemod.build(Anchor(ast_span(path, new, node2), place, tuple(detail), digest(new))) is None
    return fix, new


# --- each place ---------------------------------------------------------------------------------

def test_serialize_call_anchor_adds_sort_keys(tmp_path):
    _, new = fix_with(tmp_path, "import json\nx = 'é' + json.dumps(data, indent=2)\n",
                      call_to("json.dumps"), "serialize-call", (("keys", "str"),))
    assert new == "import json\nx = 'é' + json.dumps(data, indent=2, sort_keys=True)\n"


def test_serialize_call_anchor_without_string_keys_is_unsafe(tmp_path):
    """Keys not known to be strings: `sort_keys=True` may raise TypeError (mixed key types)."""
    fix, _ = fix_with(tmp_path, "import json\nx = json.dumps(data)\n", call_to("json.dumps"), "serialize-call",
                      expected_applicability=Applicability.UNSAFE)
    assert "raises TypeError" in fix.message


def test_serialize_call_anchor_uses_the_qualname_the_analysis_found(tmp_path):
    text = "from mylib import dump_json\nx = dump_json(data)\n"
    path = write(tmp_path, text)
    span = ast_span(path, text, call_to("dump_json")(ast.parse(text)))
    assert codemod.build(Anchor(span, "serialize-call", (), digest(text))) is None
    fix = codemod.build(Anchor(span, "serialize-call", (("qualname", "json.dumps"),), digest(text)))
    assert apply_edits(text, fix.edits) == "from mylib import dump_json\nx = dump_json(data, sort_keys=True)\n"


def test_orjson_and_yaml_calls(tmp_path):
    _, new = fix_with(tmp_path, "import orjson\nx = orjson.dumps(d)\n", call_to("orjson.dumps"), "serialize-call")
    assert new == "import orjson\nx = orjson.dumps(d, option=orjson.OPT_SORT_KEYS)\n"
    _, new = fix_with(tmp_path, "import yaml\nx = yaml.safe_dump(d, sort_keys=False)\n",
                      call_to("yaml.safe_dump"), "serialize-call")
    assert new == "import yaml\nx = yaml.safe_dump(d, sort_keys=True)\n"


@pytest.mark.parametrize("text, select, expected", [
    ("import os\nx = [n for n in os.listdir('d')]\n", call_to("os.listdir"),
     "import os\nx = [n for n in sorted(os.listdir('d'))]\n"),
    # ast puts a tuple's parentheses inside its span; libcst leaves them out
    ("x = ', '.join((a, b))\n", lambda t: first(t, ast.Tuple), "x = ', '.join(sorted((a, b)))\n"),
    # a generator that is a call's only argument: ast's span is the call's parentheses
    ("x = ', '.join(t for t in {'a', 'b'})\n", lambda t: first(t, ast.GeneratorExp),
     "x = ', '.join(sorted(t for t in {'a', 'b'}))\n"),
    ("TOPICS = {'a', 'b'}\nx = ', '.join(TOPICS)\n", call_to("', '.join"),
     "TOPICS = {'a', 'b'}\nx = ', '.join(sorted(TOPICS))\n"),
    ("import os\nx = [e.name for e in os.scandir('d')]\n", call_to("os.scandir"),
     "import os\nx = [e.name for e in sorted(os.scandir('d'), key=lambda entry: entry.name)]\n"),
])
def test_iterable_anchor_wraps_in_sorted(tmp_path, text, select, expected):
    _, new = fix_with(tmp_path, text, select, "iterable")
    assert new == expected


def test_iterable_anchor_is_unsafe_for_unknown_items_unless_the_analysis_knows(tmp_path):
    text = "def f(xs):\n    return [x for x in set(xs)]\n"
    fix_with(tmp_path, text, call_to("set"), "iterable", expected_applicability=Applicability.UNSAFE)
    fix_with(tmp_path, text, call_to("set"), "iterable", detail=[("items", "str")])


@pytest.mark.parametrize("detail, key", [
    ((("shape", "nested"),), '(t.get("function", {}).get("name", ""), t.get("type", ""))'),
    ((("api", "responses.create"),), '(t.get("name", ""), t.get("type", ""))'),
    ((("api", "chat.completions.create"),), '(t.get("function", {}).get("name", ""), t.get("type", ""))'),
    ((("shape", "object"),), 'str(getattr(t, "name", None) or getattr(t, "__name__", ""))'),
])
def test_tools_anchor_sorts_by_name_with_the_shape_key(tmp_path, detail, key):
    text = "def ask(client, tools):\n    return client.x(tools=list(tools))\n"
    _, new = fix_with(tmp_path, text, call_to("list"), "tools", detail=detail)
    assert new == f"def ask(client, tools):\n    return client.x(tools=sorted(list(tools), key=lambda t: {key}))\n"


def test_tools_anchor_without_a_known_shape_gives_no_fix(tmp_path):
    text = "def ask(client, tools):\n    return client.x(tools=list(tools))\n"
    path = write(tmp_path, text)
    span = ast_span(path, text, call_to("list")(ast.parse(text)))
    assert codemod.build(Anchor(span, "tools", (("api", "generate_content"),), digest(text))) is None


def test_tools_anchor_at_a_return_statement(tmp_path):
    text = "def load(servers):\n    collected = []\n    return collected\n"
    _, new = fix_with(tmp_path, text, lambda t: first(t, ast.Return), "tools", detail=[("shape", "flat")])
    assert new.endswith('    return sorted(collected, key=lambda t: (t.get("name", ""), t.get("type", "")))\n')


def field_span(path, text: str, expr: str) -> Span:
    """The span of the f-string field `{expr...}` as `strings.scan` gives it (braces included)."""
    tree = ast.parse(text)
    node = first(tree, ast.JoinedStr, lambda n: expr in ast.get_source_segment(text, n))
    lines = text.split("\n")
    offsets = [0]
    for line in lines[:-1]:
        offsets.append(offsets[-1] + len(line) + 1)

    def at(row, col):
        return offsets[row - 1] + char_position(text, row, col).column - 1

    pieces = scan(text, at(node.lineno, node.col_offset), at(node.end_lineno, node.end_col_offset))
    fld = next(p for p in pieces if isinstance(p, Field) and text[p.expr_start:p.expr_end].startswith(expr))

    def position(index):
        row = text.count("\n", 0, index) + 1
        return Position(row, index - offsets[row - 1] + 1)
    return Span(str(path), position(fld.start), position(fld.end))


def test_fstring_field_anchor_moves_its_line_to_the_end(tmp_path):
    text = 'from datetime import datetime\np = f"""You are X.\nToday is {datetime.now():%H:%M}.\nRules: be nice.\n"""\n'
    path = write(tmp_path, text)
    fix = codemod.build(Anchor(field_span(path, text, "datetime.now()"), "fstring-field", (), digest(text)))
    assert fix.applicability is Applicability.UNSAFE
    assert apply_edits(text, fix.edits) == \
        'from datetime import datetime\np = f"""You are X.\nRules: be nice.\nToday is {datetime.now():%H:%M}.\n"""\n'


def test_concat_operand_anchor_moves_the_operand(tmp_path):
    text = 'import uuid\np = (\n    "You are X.\\n"\n    + f"Request {uuid.uuid4()}\\n"\n    + "Rules.\\n"\n)\n'
    tree = ast.parse(text)
    operand = first(tree, ast.JoinedStr)
    _, new = fix_with(tmp_path, text, lambda t: first(t, ast.JoinedStr), "concat-operand",
                      expected_applicability=Applicability.UNSAFE)
    assert new == 'import uuid\np = (\n    "You are X.\\n"\n    + "Rules.\\n"\n    + f"Request {uuid.uuid4()}\\n"\n)\n'
    assert operand is not None


# --- contract: digests, bad input, caching ----------------------------------------------------

def test_a_changed_file_gives_no_fix(tmp_path):
    text = "import json\nx = json.dumps(data)\n"
    path = write(tmp_path, text)
    span = ast_span(path, text, call_to("json.dumps")(ast.parse(text)))
    anchor = Anchor(span, "serialize-call", (), digest(text))
    assert codemod.build(anchor) is not None
    path.write_text("import json\nx = json.dumps(dat)\n\n")
    assert codemod.build(anchor) is None
    path.write_text("import json\nx = json.dumps(data)\n\n")  # another text, the span still fits
    assert codemod.build(anchor) is None
    assert codemod.build(Anchor(span, "serialize-call")) is not None  # no digest: no check


@pytest.mark.parametrize("anchor", [
    None,
    Anchor(Span("missing.py", Position(1, 1), Position(1, 5)), "iterable"),
    Anchor(Span("app.py", Position(99, 1), Position(99, 5)), "iterable"),
    Anchor(Span("app.py", Position(2, 5), Position(1, 1)), "serialize-call"),
    Anchor(Span("app.py", Position(2, 5), Position(2, 20)), "no-such-place"),
    Anchor(Span("app.py", Position(2, 1), Position(2, 2)), "tools", (("shape", "weird"),)),
    Anchor(Span("app.py", Position(2, 5), Position(2, 21)), "serialize-call", ("not pairs",)),
    Anchor(Span(None, None, None), "iterable"),
])
def test_bad_anchors_give_none_and_never_raise(tmp_path, monkeypatch, anchor):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "import json\nx = json.dumps(data)\n")
    assert codemod.build(anchor) is None


def test_unparsable_and_unreadable_files_give_none(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.py").write_text("x = (\n")
    (tmp_path / "deep.py").write_text("x = " + "-" * 3000 + "1\n")
    (tmp_path / "dir.py").mkdir()
    for name in ("bad.py", "deep.py", "dir.py"):
        assert codemod.build(Anchor(Span(name, Position(1, 1), Position(1, 2)), "iterable")) is None


def test_overlays_are_read_and_the_cache_is_keyed_by_text(tmp_path, monkeypatch):
    text = "import json\nx = json.dumps(data)\n"
    path = write(tmp_path, "x = 1\n")
    span = ast_span(path, text, call_to("json.dumps")(ast.parse(text)))
    source.OVERLAY[path.resolve()] = text
    try:
        first_module = cm.load(path)
        assert first_module.source == text
        assert cm.load(path) is first_module  # parsed once per text
        assert codemod.build(Anchor(span, "serialize-call", (), digest(text))) is not None
    finally:
        source.OVERLAY.pop(path.resolve(), None)
    assert cm.load(path).source == "x = 1\n"


def test_the_cache_is_bounded(tmp_path):
    codemod.clear_cache()
    for i in range(cm.CACHE_SIZE + 5):
        path = tmp_path / f"m{i}.py"
        path.write_text(f"x = {i}\n")
        cm.load(path)
    assert len(cm._CACHE.items) == cm.CACHE_SIZE


@pytest.mark.parametrize("raw, encoding", [
    ("# -*- coding: latin-1 -*-\nimport json\nx = 'é' + json.dumps(d)\n", "latin-1"),
    ("import json\rx = 'é' + json.dumps(d)\r", "utf-8"),
])
def test_latin1_and_lone_cr_files_are_read_as_the_analysis_reads_them(tmp_path, raw, encoding):
    path = tmp_path / "app.py"
    path.write_bytes(raw.encode(encoding))
    text = source.read_python(path)
    assert text == raw.replace("\r", "\n")
    span = ast_span(path, text, call_to("json.dumps")(ast.parse(text)))
    fix = codemod.build(Anchor(span, "serialize-call", (), digest(text)))
    assert apply_edits(text, fix.edits).endswith("x = 'é' + json.dumps(d, sort_keys=True)\n")


def test_api_shapes():
    assert anchors.api_shape("chat.completions.create") == "nested"
    assert anchors.api_shape("messages.create") == "flat"
    assert anchors.api_shape("beta.messages.stream") == "flat"
    assert anchors.api_shape("responses.create") == "flat"
    assert anchors.api_shape("chatbot") is None and anchors.api_shape(None) is None


def test_codemod_does_not_import_the_analysis_rules_or_reporters():
    import sys
    import subprocess
    code = ("import sys, promptlint.codemod, promptlint.codemod.anchors;"
            "bad = [m for m in sys.modules if m.startswith(('promptlint.python', 'promptlint.rules', "
            "'promptlint.report'))]; print(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# --- rules build their fixes from anchors (the new analysis sets `anchor`, not `fix`) ----------

def _layout(path, parts, newest_user=None):
    from promptlint.model import PromptLayout
    site = Span(str(path), Position(1, 1), Position(1, 1))
    return PromptLayout(id=f"{path}:1", site=site, source="python-call", provider="openai",
                        api="chat.completions.create", model="gpt-4o", parts=parts, newest_user=newest_user)


STATIC = "You are the support assistant of Acme. Answer from the documents only and cite them. " * 3
LONG = STATIC * 25  # over the 1,024-token minimum of gpt-4o: a move before it caches more


def test_rules_build_fixes_from_anchors(tmp_path):
    from promptlint.model import Kind, Part, Precision, Segment, Volatility
    from promptlint.rules.prm102_timestamp_in_prefix import TimestampInPrefixRule
    from promptlint.rules.prm201_unsorted_json_dumps import UnsortedJsonDumpsRule
    from promptlint.rules.prm202_unordered_iteration_in_prompt import UnorderedIterationInPromptRule
    from promptlint.rules.prm203_unstable_tool_order import UnstableToolOrderRule

    text = ('import json, os\nfrom datetime import datetime\n'
            'def build(tools, data):\n'
            '    names = ", ".join(os.listdir("skills"))\n'
            '    blob = json.dumps(data)\n'
            '    system = f"""Now: {datetime.now()}\nRules follow.\nBe brief.\n"""\n'
            '    return list(tools), names, blob, system\n')
    path = write(tmp_path, text)
    tree = ast.parse(text)
    d = digest(text)
    anchor = lambda node, place, detail=(): Anchor(ast_span(path, text, node), place, detail, d)
    listing = anchor(call_to("os.listdir")(tree), "iterable")
    dumps = anchor(call_to("json.dumps")(tree), "serialize-call")
    tools = anchor(call_to("list")(tree), "tools", (("api", "chat.completions.create"),))
    field = Anchor(field_span(path, text, "datetime.now()"), "fstring-field", (), d)

    def seg(kind, a, **kw):
        return Segment(span=a.span, kind=kind, volatility=kw.pop("volatility", Volatility.PER_PROCESS),
                       expr="x", anchor=a, **kw)

    system = Part("system", [
        seg(Kind.TIMESTAMP, field, volatility=Volatility.PER_REQUEST, precision=Precision.SUB_DAY),
        Segment(text=LONG), seg(Kind.UNORDERED_ITERATION, listing),
        seg(Kind.SERIALIZED, dumps, volatility=Volatility.UNKNOWN, ordered=False), Segment(text=STATIC)])
    layout = _layout(path, [Part("tools", [seg(Kind.UNORDERED_ITERATION, tools)]), system])
    found = {}
    for rule in (UnsortedJsonDumpsRule(), UnorderedIterationInPromptRule(), UnstableToolOrderRule()):
        for diag in rule.check_layout(layout):
            found[diag.code] = diag.fix
    # the move pays only with the tools first in a stable order (else nothing before the time is
    # cached either way): judged without them, as `fix` judges it once their sort is applied
    [moved] = TimestampInPrefixRule().check_layout(_layout(path, [system]))
    found[moved.code] = moved.fix
    assert set(found) == {"PRM102", "PRM201", "PRM202", "PRM203"}
    assert all(fix is not None for fix in found.values()), found
    combined = apply_edits(text, [e for code in found for e in found[code].edits])
    compile(combined, "app.py", "exec")
    assert 'json.dumps(data, sort_keys=True)' in combined
    assert 'sorted(os.listdir("skills"))' in combined
    assert 'sorted(list(tools), key=lambda t: (t.get("function", {})' in combined
    assert 'f"""Rules follow.\nBe brief.\nNow: {datetime.now()}\n"""' in combined
    assert found["PRM102"].applicability is Applicability.UNSAFE


def test_move_fix_is_not_offered_when_history_follows(tmp_path):
    from promptlint.model import Kind, Part, Precision, Segment, Volatility
    from promptlint.rules.prm102_timestamp_in_prefix import TimestampInPrefixRule
    text = 'from datetime import datetime\nsystem = f"""Now: {datetime.now()}\nRules follow.\n"""\n'
    path = write(tmp_path, text)
    field = Anchor(field_span(path, text, "datetime.now()"), "fstring-field", (), digest(text))
    stamp = Segment(span=field.span, kind=Kind.TIMESTAMP, volatility=Volatility.PER_REQUEST,
                    precision=Precision.SUB_DAY, expr="datetime.now()", anchor=field)
    one_shot = _layout(path, [Part("system", [stamp, Segment(text=LONG)])])
    chat = _layout(path, [Part("system", [stamp, Segment(text=LONG)]), Part("history", [])])
    [alone] = TimestampInPrefixRule().check_layout(one_shot)
    [with_history] = TimestampInPrefixRule().check_layout(chat)
    assert alone.fix is not None and with_history.fix is None


def test_anchors_inside_classes_and_functions(tmp_path):
    """Class and function definitions have an `lpar` that is not a list of parentheses."""
    text = ("class Agent(Base):\n    def ask(self, client):\n"
            "        return client.x(tools=[t.schema() for t in self.tools])\n")
    _, new = fix_with(tmp_path, text, lambda t: first(t, ast.ListComp), "tools", detail=[("shape", "nested")])
    assert 'tools=sorted([t.schema() for t in self.tools], key=lambda t: (t.get("function", {})' in new


# --- the focused parse: only the definition a fix edits -----------------------------------------
_MANY = '''\
import json
from os import listdir as ls
TOOLS = {"b", "a"}


def other(d):
    import yaml as y
    return json.dumps(d)


@decorated
class Agent:
    def tools(self):
        return [t for t in TOOLS]


def last():
    return ls(".")
'''


def test_a_fix_parses_only_the_definition_it_edits_and_the_module_statements():
    tree = ast.parse(_MANY)
    focused = cm._focused(tree, _MANY, (14, 14))
    lines, kept = _MANY.split("\n"), focused.split("\n")
    assert len(kept) == len(lines)  # rows and columns are the whole text's
    assert kept[:5] == lines[:5] and kept[10:16] == lines[10:16]  # module statements, the class with its decorator
    assert kept[5:8] == ["", "", ""] and kept[16:18] == ["", ""]  # the other definitions blanked
    assert lines[5] == "def other(d):" and lines[16] == "def last():"
    assert cm._focused(tree, _MANY, (3, 3)) == _MANY  # no definition holds the rows: the whole text
    crlf = _MANY.replace("\n", "\r\n")
    assert cm._focused(ast.parse(crlf), crlf, (14, 14)).split("\n")[5] == "\r"  # line breaks kept


def test_a_focused_parse_still_knows_every_import_and_gives_the_whole_file_fix(tmp_path):
    path = write(tmp_path, _MANY)
    module = cm.load(path, rows=(14, 14))
    assert module.imports == {"json": "json", "ls": "os.listdir", "y": "yaml"}  # the blanked function's import too
    assert module.source == _MANY and module.digest == digest(_MANY)
    node = first(ast.parse(_MANY), ast.Name, lambda n: n.id == "TOOLS" and n.lineno == 14)
    focused = codemod.build(Anchor(ast_span(path, _MANY, node), "iterable", (), digest(_MANY)))
    cm.clear_cache()
    whole = anchors._build(cm.load(path), Anchor(ast_span(path, _MANY, node), "iterable", (), digest(_MANY)), None)
    assert focused is not None and whole is not None
    assert focused.edits == whole.edits
    assert apply_edits(_MANY, focused.edits).split("\n")[13] == "        return [t for t in sorted(TOOLS)]"
