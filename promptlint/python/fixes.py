"""Fix builders: text edits computed from libcst nodes of a parsed `Module`, never from guessed spans.

Every position comes from `module.positions` (libcst PositionProvider). PositionProvider leaves a
node's own parentheses out, so `_extent` widens a span to its first `lpar` and last `rpar`.
Before returning, each builder applies its edits to the source and re-parses the changed
expression with `ast` and libcst; a builder that cannot make a sure edit returns None and the
finding keeps a display-only suggestion. Builders are pure: they read the module, never the disk.

- `sort_keys_fix` / `add_keyword_fix` / `orjson_sort_keys_fix` (PRM201): `sort_keys=True`, or
  orjson's `option=orjson.OPT_SORT_KEYS` (https://github.com/ijl/orjson#option).
- `wrap_sorted_fix` (PRM202): wrap an iterable in `sorted(...)`.
- `sort_tools_fix` (PRM203): `sorted(tools, key=lambda t: ...)` by tool name.
- `move_to_end_fix` (PRM101-PRM103, unsafe): move a volatile value to the end of its f-string
  or string concatenation.
"""
from __future__ import annotations

import ast
import functools
import re
from typing import TYPE_CHECKING, Callable, Sequence

import libcst as cst

from ..fix import EditError, _line_starts, _offset, apply_edits
from ..model import Applicability, Edit, Fix, Position

if TYPE_CHECKING:  # pragma: no cover
    from .project import Module

SAFE, UNSAFE = Applicability.SAFE, Applicability.UNSAFE

#: Tool-name keys for `sort_tools_fix`: OpenAI's nested shape, flat dicts, objects.
KEY_NESTED = 'lambda t: t["function"]["name"]'
KEY_FLAT = 'lambda t: t["name"]'
KEY_OBJECT = "lambda t: t.name"

_JSON_DUMPS = {"json.dumps", "json.dump", "simplejson.dumps", "simplejson.dump"}
_YAML_DUMPS = {"yaml.dump", "yaml.safe_dump", "yaml.dump_all", "yaml.safe_dump_all"}
_ORJSON_DUMPS = {"orjson.dumps"}
#: Iterables whose items do not support `<`: sorted() needs a key, or cannot help at all.
_SORT_KEYS = {"os.scandir": "lambda entry: entry.name"}
_UNSORTABLE = {"concurrent.futures.as_completed", "asyncio.as_completed"}


class _NotSure(Exception):
    """Raised inside a builder when no edit is sure; the builder returns None."""


# --- positions and checks ----------------------------------------------------------------------

def _pos(module: "Module", node: cst.CSTNode):
    rng = module.positions.get(node)
    if rng is None:
        raise _NotSure(f"no position for {type(node).__name__}")
    return rng


def _extent(module: "Module", node: cst.CSTNode) -> tuple[Position, Position]:
    """The node's 1-based (start, end) including its own parentheses."""
    first = node.lpar[0] if getattr(node, "lpar", None) else node
    last = node.rpar[-1] if getattr(node, "rpar", None) else node
    start, end = _pos(module, first).start, _pos(module, last).end
    return Position(start.line, start.column + 1), Position(end.line, end.column + 1)


def _starts(module: "Module") -> list[int]:
    cache = module.__dict__.get("_fix_line_starts")
    if cache is None or cache[0] is not module.source:
        cache = (module.source, _line_starts(module.source))
        module.__dict__["_fix_line_starts"] = cache
    return cache[1]


def _slice(module: "Module", start: Position, end: Position) -> str:
    starts = _starts(module)
    try:
        return module.source[_offset(starts, module.source, start):_offset(starts, module.source, end)]
    except EditError as exc:
        raise _NotSure(str(exc)) from exc


def _source_of(module: "Module", node: cst.CSTNode) -> str:
    """The node's source text (with its parentheses), checked against libcst's own rendering
    up to whitespace (`code_for_node` drops the indentation of continuation lines in blocks)."""
    text = _slice(module, *_extent(module, node))
    if "".join(text.split()) != "".join(module.tree.code_for_node(node).split()):
        raise _NotSure("span does not match the node")
    return text


def _parses(text: str) -> bool:
    """True when `text` is an expression both Python's parser and libcst accept (in parentheses,
    so line breaks inside are allowed as in any bracketed context)."""
    try:
        ast.parse(f"({text}\n)", mode="eval")
        cst.parse_expression(f"({text}\n)")
    except (SyntaxError, ValueError, cst.ParserSyntaxError, RecursionError):
        return False
    return True


def _checked(module: "Module", node: cst.CSTNode, edits: list[Edit],
             applicability: Applicability, message: str) -> Fix:
    """A Fix of `edits` (all inside `node`) once the node's edited source re-parses."""
    start, end = _extent(module, node)
    before = _source_of(module, node)
    try:
        shifted = [Edit(e.content, _relative(e.start, start), _relative(e.end, start)) for e in edits]
        after = apply_edits(before, shifted)
    except EditError as exc:
        raise _NotSure(str(exc)) from exc
    if after == before or not _parses(after):
        raise _NotSure("the edited expression does not parse")
    return Fix(applicability, message, sorted(edits, key=lambda e: (e.start, e.end)))


def _relative(position: Position, origin: Position) -> Position:
    """`position` in the coordinates of a text that starts at `origin`."""
    if position.row == origin.row:
        return Position(1, position.column - origin.column + 1)
    return Position(position.row - origin.row + 1, position.column)


def _insert(content: str, at: Position) -> Edit:
    return Edit(content, at, at)


def _sure(build):
    """Decorator: a builder that raises _NotSure (or meets a node of another tree) returns None."""
    @functools.wraps(build)
    def wrapper(*args, **kwargs):
        try:
            return build(*args, **kwargs)
        except (_NotSure, KeyError):
            return None
    return wrapper


# --- PRM201: sorted keys -----------------------------------------------------------------------

def _keyword(call: cst.Call, name: str) -> cst.Arg | None:
    return next((a for a in call.args if a.keyword is not None and a.keyword.value == name), None)


@_sure
def add_keyword_fix(module: "Module", call: cst.Call, keyword: str, value: str, message: str,
                    applicability: Applicability = SAFE) -> Fix | None:
    """Set `keyword=value` on `call`: replace an existing keyword's value, or add the keyword.

    The new keyword goes after the last argument (`f(x)` -> `f(x, k=v)`; a trailing comma,
    comments and line breaks stay where they are), before the first `**mapping` (`f(x, **kw)`
    -> `f(x, k=v, **kw)`; such a fix is unsafe because the mapping may hold the keyword
    already, a TypeError at run time), and a lone generator argument gets its own parentheses
    (`f(x for x in y)` -> `f((x for x in y), k=v)`). Returns None when the keyword already has
    this value or no sure edit exists.
    """
    existing = _keyword(call, keyword)
    if existing is not None:
        if _source_of(module, existing.value) == value:
            return None
        start, end = _extent(module, existing.value)
        return _checked(module, call, [Edit(value, start, end)], applicability, message)
    pair = f"{keyword}={value}"
    double_star = next((a for a in call.args if a.star == "**"), None)
    if double_star is not None:
        at = _extent(module, double_star)[0]
        return _checked(module, call, [_insert(f"{pair}, ", at)], UNSAFE,
                        f"{message} (unsafe: `{module.code(double_star)}` may set it already)")
    if not call.args:
        end = _pos(module, call).end  # the call's own ")" is its last character
        if _slice(module, Position(end.line, end.column), Position(end.line, end.column + 1)) != ")":
            raise _NotSure("call does not end with ')'")
        return _checked(module, call, [_insert(pair, Position(end.line, end.column))],
                        applicability, message)
    last = call.args[-1].value
    start, end = _extent(module, last)
    own_line = _own_line_insertion(module, call, pair)
    if own_line is not None:
        edits = [own_line]
    elif isinstance(last, cst.GeneratorExp) and not last.lpar:
        edits = [_insert("(", start), _insert(f"), {pair}", end)]
    else:
        edits = [_insert(f", {pair}", end)]
    return _checked(module, call, edits, applicability, message)


def _own_line_insertion(module: "Module", call: cst.Call, pair: str) -> Edit | None:
    """For one-argument-per-line calls with a trailing comma (black's layout), an edit that adds
    `pair,` on a new line after the last argument, with its indentation; None otherwise."""
    arg = call.args[-1]
    if not isinstance(arg.comma, cst.Comma):
        return None
    comma_row = _pos(module, arg.comma).start.line
    if _pos(module, call).end.line <= comma_row:
        return None  # ")" on the comma's row
    first = _extent(module, arg)[0]
    lines = module.source.split("\n")
    indent = lines[first.row - 1][: first.column - 1]
    if indent.strip():
        return None  # the argument does not start its row
    row = lines[comma_row - 1].removesuffix("\r")
    return _insert(f"\n{indent}{pair},", Position(comma_row, len(row) + 1))


def _orjson_option(module: "Module", call: cst.Call) -> str | None:
    """How this file can name `orjson.OPT_SORT_KEYS`, or None when it has no name for it."""
    func = call.func
    if isinstance(func, cst.Attribute) and module.qualified_name(func.value) == "orjson":
        return f"{module.code(func.value)}.OPT_SORT_KEYS"
    for local, dotted in sorted(module.imports.items()):
        if dotted == "orjson":
            return f"{local}.OPT_SORT_KEYS"
    for local, dotted in sorted(module.imports.items()):
        if dotted == "orjson.OPT_SORT_KEYS":
            return local
    return None


def _names_sort_keys_flag(module: "Module", value: cst.CSTNode) -> bool:
    """True when the expression mentions OPT_SORT_KEYS (directly or through an import alias)."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.Name, cst.Attribute)):
            name = module.qualified_name(node) or ""
            if name.endswith("OPT_SORT_KEYS"):
                return True
        stack.extend(node.children)
    return False


@_sure
def orjson_sort_keys_fix(module: "Module", call: cst.Call,
                         message: str = "Add `orjson.OPT_SORT_KEYS` to `option`") -> Fix | None:
    """`orjson.dumps(x)` -> `orjson.dumps(x, option=orjson.OPT_SORT_KEYS)`; an existing option
    (keyword or third positional argument) gets `| orjson.OPT_SORT_KEYS`, parenthesised when
    needed; `option=None` is replaced. None when the option already names OPT_SORT_KEYS or the
    file has no name for orjson (a `from orjson import dumps` alone)."""
    flag = _orjson_option(module, call)
    if flag is None:
        return None
    option = _keyword(call, "option")
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if option is None and len(positional) >= 3:
        option = positional[2]
    if option is None:
        return add_keyword_fix(module, call, "option", flag, message)
    value = option.value
    if _names_sort_keys_flag(module, value):
        return None
    start, end = _extent(module, value)
    if isinstance(value, cst.Name) and value.value == "None":
        edits = [Edit(flag, start, end)]
    elif isinstance(value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer)) \
            or value.lpar or (isinstance(value, cst.BinaryOperation)
                              and isinstance(value.operator, cst.BitOr)):
        edits = [_insert(f" | {flag}", end)]
    else:
        edits = [_insert("(", start), _insert(f") | {flag}", end)]
    return _checked(module, call, edits, SAFE, message)


def sort_keys_fix(module: "Module", call: cst.Call, message: str | None = None) -> Fix | None:
    """The PRM201 fix for a serialising call, chosen by what the call is (through imports):
    json/simplejson `dumps`/`dump` -> `sort_keys=True`; yaml `dump`/`safe_dump` with
    `sort_keys=False` -> `sort_keys=True` (PyYAML sorts by default, so no keyword means no
    fix); `orjson.dumps` -> `option=orjson.OPT_SORT_KEYS`. None for anything else."""
    name = module.qualified_name(call.func)
    if name in _JSON_DUMPS:
        return add_keyword_fix(module, call, "sort_keys", "True", message or "Add `sort_keys=True`")
    if name in _YAML_DUMPS:
        if _keyword(call, "sort_keys") is None:
            return None
        return add_keyword_fix(module, call, "sort_keys", "True", message or "Set `sort_keys=True`")
    if name in _ORJSON_DUMPS:
        return orjson_sort_keys_fix(module, call, *([message] if message else []))
    return None


# --- PRM202 / PRM203: sorted iteration ---------------------------------------------------------

def _is_sorted_call(module: "Module", node: cst.CSTNode | None) -> bool:
    return isinstance(node, cst.Call) and module.qualified_name(node.func) in {"sorted", "builtins.sorted"}


def _already_sorted(module: "Module", expr: cst.CSTNode) -> bool:
    """True for `sorted(...)` itself and for the first argument of a `sorted(...)` call."""
    if _is_sorted_call(module, expr):
        return True
    parents = _parents(module)
    arg = parents.get(expr)
    return isinstance(arg, cst.Arg) and _is_sorted_call(module, parents.get(arg)) \
        and parents[arg].args[0] is arg


def _wrap(module: "Module", expr: cst.BaseExpression, key: str | None, message: str) -> Fix:
    start, end = _extent(module, expr)
    bare_generator = isinstance(expr, cst.GeneratorExp) and not expr.lpar
    if key is None:
        edits = [_insert("sorted(", start), _insert(")", end)]
    elif bare_generator:
        edits = [_insert("sorted((", start), _insert(f"), key={key})", end)]
    else:
        edits = [_insert("sorted(", start), _insert(f", key={key})", end)]
    return _checked(module, expr, edits, SAFE, message)


@_sure
def wrap_sorted_fix(module: "Module", expr: cst.BaseExpression,
                    message: str = "Wrap the iterable in `sorted(...)`",
                    key: str | None = None) -> Fix | None:
    """Wrap an iterable in `sorted(...)`: `s` -> `sorted(s)`; `", ".join(s)` (the join call
    itself given) -> `", ".join(sorted(s))`; a lone generator argument stays valid
    (`f(x for x in s)` -> `f(sorted(x for x in s))`). `key` is a key expression; `os.scandir(...)`
    gets `key=lambda entry: entry.name` (DirEntry has no `<`). Returns None for an already sorted
    iterable and for `as_completed(...)` (futures have no order to sort by).

    Safe: the same items in a fixed order. Items must support `<` (strings, paths, tuples of them)."""
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) \
            and expr.func.attr.value == "join" and len(expr.args) == 1 and not expr.args[0].star:
        expr = expr.args[0].value
    if _already_sorted(module, expr):
        return None
    if isinstance(expr, cst.Call):
        name = module.qualified_name(expr.func)
        if name in _UNSORTABLE:
            return None
        key = key or _SORT_KEYS.get(name or "")
    return _wrap(module, expr, key, message)


@_sure
def sort_tools_fix(module: "Module", expr: cst.BaseExpression | cst.Return, nested: bool = False,
                   *, objects: bool = False, message: str = "Sort the tools by name") -> Fix | None:
    """Sort a tools list by tool name: `tools` -> `sorted(tools, key=...)` with key
    `t["function"]["name"]` for OpenAI's nested shape (`nested`), `t.name` for objects such as
    MCP `Tool` (`objects`), `t["name"]` for flat dicts (Anthropic). Given a `return collected`
    statement, the returned value is sorted. None when already sorted or nothing is returned.

    Safe: the same tools, in name order."""
    if isinstance(expr, cst.Return):
        if expr.value is None:
            return None
        expr = expr.value
    if _already_sorted(module, expr):
        return None
    key = KEY_NESTED if nested else KEY_OBJECT if objects else KEY_FLAT
    return _wrap(module, expr, key, message)


# --- PRM101-PRM103: move a volatile value to the end (unsafe) ----------------------------------

def _parents(module: "Module") -> dict:
    """Node -> parent for the module's tree, computed once and kept on the module."""
    from .project import iter_children
    cache = module.__dict__.get("_fix_parents")
    if cache is None or cache[0] is not module.tree:
        parents: dict = {}
        stack = [module.tree]
        while stack:
            node = stack.pop()
            for child in iter_children(node):
                parents[child] = node
                stack.append(child)
        cache = (module.tree, parents)
        module.__dict__["_fix_parents"] = cache
    return cache[1]


def _break_ends(text: str, raw: bool) -> list[int]:
    """Indexes just after each line break of an f-string's literal text: a real newline
    (triple-quoted) or, unless raw, the escape `\\n` (a `\\\\` escape is skipped)."""
    ends, i = [], 0
    while i < len(text):
        char = text[i]
        if char == "\\" and not raw and i + 1 < len(text):
            if text[i + 1] == "n":
                ends.append(i + 2)
            i += 2
            continue
        if char == "\n":
            ends.append(i + 1)
        i += 1
    return ends


class _Line:
    """One line of an f-string's content: source chunks, the expressions it holds, its break."""

    def __init__(self):
        self.chunks: list[str] = []
        self.literal: list[str] = []  # the chunks outside `{...}` fields
        self.nodes: list[cst.CSTNode] = []
        self.brk = ""

    @property
    def text(self) -> str:
        return "".join(self.chunks)

    @property
    def body(self) -> str:
        return self.text[: len(self.text) - len(self.brk)] if self.brk else self.text

    @property
    def is_static(self) -> bool:
        return not self.nodes and bool(self.body.strip())

    def brackets(self) -> tuple[int, int]:
        """(net bracket depth change, lowest depth reached) of the literal text; `{{` is `{`."""
        text = "".join(self.literal).replace("{{", "{").replace("}}", "}")
        depth = low = 0
        for char in text:
            depth += (char in "([{") - (char in ")]}")
            low = min(low, depth)
        return depth, low

    def quotes(self) -> int:
        return "".join(self.literal).count('"')


def _fstring_lines(module: "Module", fstring: cst.FormattedString) -> list[_Line]:
    raw = "r" in fstring.prefix.lower()
    lines, line = [], _Line()
    for part in fstring.parts:
        code = _source_of(module, part)
        if isinstance(part, cst.FormattedStringExpression):
            line.chunks.append(code)
            line.nodes.append(part)
            continue
        last = 0
        for end in _break_ends(code, raw):
            piece = code[last:end]
            line.chunks.append(piece)
            line.literal.append(piece)
            if piece.endswith("\n"):
                line.brk = "\r\n" if piece.endswith("\r\n") else "\n"
            else:  # the escape sequence
                line.brk = "\\n"
            lines.append(line)
            line, last = _Line(), end
        if code[last:]:
            line.chunks.append(code[last:])
            line.literal.append(code[last:])
    lines.append(line)  # the tail after the last break (maybe empty)
    return lines


def _move_line(module: "Module", fstring: cst.FormattedString, target: cst.CSTNode,
               message: str) -> Fix | None:
    lines = _fstring_lines(module, fstring)
    start = _extent(module, fstring.parts[0])[0]
    end = _extent(module, fstring.parts[-1])[1]
    if _slice(module, start, end) != "".join(ln.text for ln in lines):
        raise _NotSure("f-string content does not match its parts")
    index = next((i for i, ln in enumerate(lines) if any(n is target for n in ln.nodes)), None)
    if index is None or not any(ln.is_static for ln in lines[index + 1:]):
        return None
    moved, rest, tail = lines[index], lines[:index] + lines[index + 1:-1], lines[-1]
    closing = not tail.nodes and not tail.text.strip()  # closing indentation or nothing
    passed = lines[index + 1:-1] if closing else lines[index + 1:]
    if _leaves_a_block(moved, passed, lines[index - 1] if index else None):
        return None
    lead = ""  # a line continuation right after the opening quotes stays there
    if index == 0 and re.match(r"\\\r?\n", moved.text):
        lead = moved.text[: moved.text.index("\n") + 1]
        moved.chunks[0] = moved.chunks[0][len(lead):]
    if closing:
        text = lead + "".join(ln.text for ln in rest) + moved.text + tail.text
    else:
        text = lead + "".join(ln.text for ln in rest) + tail.text + moved.brk + moved.body
    return _checked(module, fstring, [Edit(text, start, end)], UNSAFE, message)


_TAG_LINE = re.compile(r"<(/?)([A-Za-z][\w.:-]*)[^<>]*?(/?)>")
_FENCES = ("```", "~~~")


def _indent(text: str) -> str:
    return text[: len(text) - len(text.lstrip(" \t"))]


def _is_header(line: _Line) -> bool:
    """A line that names what follows it: `Goal:`, `# Goal`, `<Goal>`."""
    body = line.body.strip()
    tag = _TAG_LINE.fullmatch(body)
    return body.endswith(":") or body.startswith("#") or bool(tag and not tag.group(1) and not tag.group(3))


def _leaves_a_block(moved: _Line, passed: list[_Line], before: _Line | None) -> bool:
    """True when moving `moved` after the `passed` lines would take it out of its context.

    That is when it is the value of a header line before it (`Goal:`, `# Goal`, `<Goal>`), opens
    or closes brackets or quotes of its own, or would pass a Markdown heading, a tag line not
    opened and closed within the passed lines, an odd number of code fences or of `"`, a bracket
    closed that was opened before it, or land at another indentation than the line it follows."""
    depth, low = moved.brackets()
    if (before is not None and _is_header(before)) or depth or low or moved.quotes() % 2:
        return True
    opened: list[str] = []
    fences = quotes = depth = 0
    for line in passed:
        body = line.body.strip()
        if body.startswith("#"):
            return True
        fences += body.startswith(_FENCES)
        quotes += line.quotes()
        change, low = line.brackets()
        if depth + low < 0:
            return True
        depth += change
        tag = _TAG_LINE.fullmatch(body)
        if tag and not tag.group(3):
            if not tag.group(1):
                opened.append(tag.group(2))
            elif opened and opened[-1] == tag.group(2):
                opened.pop()
            else:
                return True
    if opened or fences % 2 or quotes % 2:
        return True
    last = next((ln for ln in reversed(passed) if ln.body.strip()), None)
    return last is not None and _indent(last.body) != _indent(moved.body)


def _string_content(node: cst.CSTNode) -> tuple[str, bool] | None:
    """The source text between the quotes of a string literal's last piece, and whether it is
    raw; None for anything else."""
    while isinstance(node, cst.ConcatenatedString):
        node = node.right
    if isinstance(node, cst.SimpleString):
        return node.raw_value, "r" in node.prefix.lower()
    if isinstance(node, cst.FormattedString):
        last = node.parts[-1] if node.parts else None
        text = last.value if isinstance(last, cst.FormattedStringText) else ""
        return text, "r" in node.prefix.lower()
    return None


def _ends_line(node: cst.CSTNode) -> bool:
    """True for a string literal whose text ends with a line break (a newline or `\\n`)."""
    content = _string_content(node)
    if content is None or not content[0]:
        return False
    ends = _break_ends(*content)
    return bool(ends) and ends[-1] == len(content[0])


def _is_static_literal(node: cst.CSTNode) -> bool:
    """A str literal without interpolation and with some visible text."""
    if isinstance(node, cst.ConcatenatedString):
        return _is_literal_text(node) and (_is_static_literal(node.left) or _is_static_literal(node.right))
    if not _is_literal_text(node):
        return False
    text, _ = _string_content(node)
    return bool(text.replace("\\n", "").strip())


_NON_STRING = (cst.List, cst.Tuple, cst.Dict, cst.Set, cst.ListComp, cst.SetComp, cst.DictComp,
               cst.GeneratorExp, cst.Integer, cst.Float, cst.Imaginary)


def _is_literal_text(node: cst.CSTNode) -> bool:
    """A str literal without interpolation: "x", "a" "b", f"no fields"."""
    if isinstance(node, cst.SimpleString):
        return "b" not in node.prefix.lower()
    if isinstance(node, cst.FormattedString):
        return not any(isinstance(p, cst.FormattedStringExpression) for p in node.parts)
    if isinstance(node, cst.ConcatenatedString):
        return _is_literal_text(node.left) and _is_literal_text(node.right)
    return False


def _operands(root: cst.CSTNode, chain_type: type) -> list[cst.CSTNode]:
    def walk(node):
        if isinstance(node, chain_type) and (node is root or not node.lpar) and (
                chain_type is cst.ConcatenatedString or isinstance(node.operator, cst.Add)):
            return walk(node.left) + walk(node.right)
        return [node]
    return walk(root)


def _is_chain(parent: cst.CSTNode, child: cst.CSTNode) -> bool:
    if isinstance(parent, cst.ConcatenatedString):
        return True
    return isinstance(parent, cst.BinaryOperation) and isinstance(parent.operator, cst.Add) \
        and (parent.left is child or parent.right is child)


def _move_operand(module: "Module", node: cst.CSTNode, message: str,
                  is_static: Callable[[cst.CSTNode], bool] | None) -> Fix | None:
    parents = _parents(module)
    child, parent = node, parents.get(node)
    while parent is not None and not _is_chain(parent, child):
        if isinstance(parent, (cst.BaseStatement, cst.BaseSmallStatement, cst.Lambda)):
            return None
        child, parent = parent, parents.get(parent)
    if parent is None:
        return None
    chain_type = type(parent)
    root = parent
    while not root.lpar and isinstance(parents.get(root), chain_type) and (
            chain_type is cst.ConcatenatedString or (
                isinstance(parents[root].operator, cst.Add) and parents[root].left is root)):
        root = parents[root]
    operands = _operands(root, chain_type)
    index = next((i for i, op in enumerate(operands) if op is child), None)
    if index is None:
        return None
    if chain_type is cst.BinaryOperation:
        if not any(isinstance(op, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString))
                   for op in operands):
            return None  # not known to be a string concatenation
        if any(isinstance(op, _NON_STRING) or (isinstance(op, cst.SimpleString)
                                               and "b" in op.prefix.lower()) for op in operands):
            return None
    static = is_static or _is_static_literal
    if not any(static(op) for op in operands[index + 1:]):
        return None
    # Move whole lines only: the operand, the one before it and the new last one end lines.
    if not (_ends_line(child) and _ends_line(operands[-1])
            and (index == 0 or _ends_line(operands[index - 1]))):
        return None
    extents = [_extent(module, op) for op in operands]
    texts = [_source_of(module, op) for op in operands]
    seps = [_slice(module, extents[i][1], extents[i + 1][0]) for i in range(len(operands) - 1)]
    if any("#" in sep for sep in seps):
        return None  # comments would end up next to the wrong operand
    order = texts[:index] + texts[index + 1:] + [texts[index]]
    text = order[0] + "".join(sep + op for sep, op in zip(seps, order[1:]))
    edit = Edit(text, extents[0][0], extents[-1][1])
    return _checked(module, root, [edit], UNSAFE, message)


@_sure
def move_to_end_fix(module: "Module", node: cst.CSTNode, message: str | None = None,
                    is_static: Callable[[cst.CSTNode], bool] | None = None) -> Fix | None:
    """Move a volatile value after the static text that follows it (unsafe: the prompt's
    content is reordered). `node` is the volatile expression or its `{...}` field.

    1. Inside a multi-line f-string, the field's whole line (its text and line break, a real
       newline or `\\n`) moves to the end of the f-string, before any closing indentation;
       not out of its context (the value of a `Label:` line, past a Markdown heading, past a
       closing tag line such as `</context>` opened before it, across a code fence, or to
       another indentation).
    2. Otherwise, in a string concatenation (`+` with a str literal operand, or implicit
       `"a" "b"`), the operand holding the value moves to the end when it is made of whole
       lines (it, the operand before it and the last operand are literals ending with a line
       break); operators, line breaks and indentation stay in place. Not when a comment sits
       between operands.
    A move happens only when a static line / operand (a str literal with visible text;
    `is_static(node)` decides for operands when given) follows, so repeated fixes converge with
    all static text first (static text keeps its order). None when no edit is sure (one-line
    f-string, a fragment of a line, `.format`, templates).
    """
    message = message or f"Move `{_short(module.code(node))}` to the end of the prompt text"
    parents = _parents(module)
    field_node, current = None, node
    while current is not None and not isinstance(current, cst.BaseStatement):
        parent = parents.get(current)
        if isinstance(current, cst.FormattedStringExpression) and isinstance(parent, cst.FormattedString):
            field_node = current
            break
        current = parent
    if field_node is not None:
        fix = _move_line(module, parents[field_node], field_node, message)
        if fix is not None:
            return fix
    return _move_operand(module, node, message, is_static)


def _short(code: str, limit: int = 40) -> str:
    code = " ".join(code.split())
    return code if len(code) <= limit else code[: limit - 3] + "..."


__all__: Sequence[str] = [
    "add_keyword_fix", "orjson_sort_keys_fix", "sort_keys_fix", "wrap_sorted_fix",
    "sort_tools_fix", "move_to_end_fix", "KEY_NESTED", "KEY_FLAT", "KEY_OBJECT",
]
