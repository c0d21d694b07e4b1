"""PRM101-PRM103 fixes (unsafe): move a volatile value after the static text that follows it.

`move_to_end_fix` moves the line of a multi-line f-string that holds the value, or the operand of
a string concatenation (`+` or implicit) that holds it, to the end of that string. The moved
value takes exactly its own characters and separators: a whole line with its line break, one
sentence of a line shared with other sentences (the rest of the line stays), or one operand
(operators, line breaks and indentation stay in place). When no such edit is sure (a value in
the middle of a sentence, a fragment of a line, a label and its value, a block the line would
leave) there is no fix.
"""
from __future__ import annotations

import bisect
import re
from typing import Callable

import libcst as cst

from ..model import Edit, Fix
from ._common import UNSAFE, NotSure, checked, extent, parents, short, source_of, sure, text_slice


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
    """One line of an f-string's content: source chunks, the fields it holds, its break.

    `fields` are (start, end, node) of each `{...}` field, offsets in `text`."""

    def __init__(self, text: str = "", brk: str = ""):
        self.chunks: list[str] = [text] if text else []
        self.length = len(text)  # of `text` as chunks are added (linear: no join per field)
        self.literal: list[str] = []  # the chunks outside `{...}` fields
        self.nodes: list[cst.CSTNode] = []
        self.fields: list[tuple[int, int, cst.CSTNode]] = []
        self.brk = brk

    def add_field(self, code: str, node: cst.CSTNode) -> None:
        at = self.length
        self.chunks.append(code)
        self.length += len(code)
        self.nodes.append(node)
        self.fields.append((at, at + len(code), node))

    def add_literal(self, code: str) -> None:
        self.chunks.append(code)
        self.length += len(code)
        self.literal.append(code)

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

    def part(self, start: int, end: int, prefix: str = "", brk: str | None = None) -> "_Line":
        """A line made of `prefix` + text[start:end] (literal text and whole fields only)."""
        line = _Line(brk=self.brk if brk is None else brk)
        cursor, text = start, self.text
        if prefix:
            line.add_literal(prefix)
        for a, b, node in self.fields:
            if a < start or b > end:
                continue
            if a > cursor:
                line.add_literal(text[cursor:a])
            line.add_field(text[a:b], node)
            cursor = b
        if end > cursor:
            line.add_literal(text[cursor:end])
        if line.brk:
            line.add_literal(line.brk)
        return line


def _fstring_lines(module, fstring: cst.FormattedString) -> list[_Line]:
    raw = "r" in fstring.prefix.lower()
    lines, line = [], _Line()
    for part in fstring.parts:
        code = source_of(module, part)
        if isinstance(part, cst.FormattedStringExpression):
            line.add_field(code, part)
            continue
        last = 0
        for end in _break_ends(code, raw):
            piece = code[last:end]
            line.add_literal(piece)
            if piece.endswith("\n"):
                line.brk = "\r\n" if piece.endswith("\r\n") else "\n"
            else:  # the escape sequence
                line.brk = "\\n"
            lines.append(line)
            line, last = _Line(), end
        if code[last:]:
            line.add_literal(code[last:])
    lines.append(line)  # the tail after the last break (maybe empty)
    return lines


def _constant_fields(line: _Line, is_static: Callable[[cst.CSTNode], bool] | None) -> bool:
    """True for a line of fields only, each of static text by `is_static` (by default a name
    written as a constant, `{GUIDE}`, `{prompts.RULES}`): static text the value can move after
    (the fixer keeps the move only when the fixed prompt caches more)."""
    static = is_static or _constant_name
    return bool(line.nodes) and not "".join(line.literal).replace(line.brk, "").strip() \
        and all(static(n.expression) for n in line.nodes if isinstance(n, cst.FormattedStringExpression))


def _constant_name(node: cst.CSTNode) -> bool:
    """A name, or an attribute, written in capitals (`GUIDE`, `prompts.SYSTEM_RULES`)."""
    name = node.attr.value if isinstance(node, cst.Attribute) else node.value if isinstance(node, cst.Name) else ""
    return bool(name) and name.isupper()


def _move_line(module, fstring: cst.FormattedString, target: cst.CSTNode,
               message: str, is_static: Callable[[cst.CSTNode], bool] | None = None) -> Fix | None:
    lines = _fstring_lines(module, fstring)
    start = extent(module, fstring.parts[0])[0]
    end = extent(module, fstring.parts[-1])[1]
    if text_slice(module, start, end) != "".join(ln.text for ln in lines):
        raise NotSure("f-string content does not match its parts")
    index = next((i for i, ln in enumerate(lines) if any(n is target for n in ln.nodes)), None)
    if index is None or not lines[index].brk or not any(ln.is_static or _constant_fields(ln, is_static)
                                                         for ln in lines[index + 1:]):
        return None
    unit = _unit(lines, index, target)
    if unit is None:
        return None
    moved, stays = unit
    after = index + 1  # a whole line moved takes the blank lines after it along (a paragraph break)
    while stays is None and after < len(lines) - 1 and not lines[after].nodes and not lines[after].body.strip():
        after += 1
    blanks = "".join(ln.text for ln in lines[index + 1:after])
    rest = lines[:index] + ([stays] if stays is not None else []) + lines[after:-1]
    tail = lines[-1]
    closing = not tail.nodes and not tail.text.strip()  # closing indentation or nothing
    passed = lines[index + 1:-1] if closing else lines[index + 1:]
    if _leaves_a_block(moved, passed, lines[index - 1] if index else None):
        return None
    lead = ""  # a line continuation right after the opening quotes stays there
    if index == 0 and stays is None and re.match(r"\\\r?\n", moved.text):
        lead = moved.text[: moved.text.index("\n") + 1]
        moved.chunks[0] = moved.chunks[0][len(lead):]
        moved.length -= len(lead)
    if closing:
        text = lead + "".join(ln.text for ln in rest) + blanks + moved.text + tail.text
    else:
        text = lead + "".join(ln.text for ln in rest) + tail.text + moved.brk + blanks + moved.body
    return checked(module, fstring, [Edit(text, start, end)], UNSAFE, message)


#: The end of a sentence inside a line: a terminator (closing quotes or brackets may follow it),
#: spaces, then the start of the next sentence (not a lower-case letter: "e.g. this" goes on).
# Linear time (issue 17): a run of stops and closing quotes is taken whole (a lookahead group and
# its backreference: no backtracking into the run), and only from its first character.
_SENTENCE_END = re.compile(r"(?<![.!?])(?=(?P<stop>[.!?]+[\"')\]]*))(?P=stop)(?P<space>[ \t]+)(?=[^a-z \t])")
_TERMINATED = re.compile(r"[.!?:;)\]}>\"'`*]$")


def _unit(lines: list[_Line], index: int, target) -> tuple[_Line, _Line | None] | None:
    """What moves for the field `target` on line `index`: (the moved line, the line that stays
    in its place or None). The whole line when it is one sentence; else only the sentence that
    holds the field, with one of the spaces around it (the rest of the line stays). None when
    the sentence goes on across a line break (moving it would split it), or when the moved
    sentence holds other fields."""
    line = lines[index]
    body = line.body
    starts = [fa for fa, _, _ in line.fields]  # in text order, not overlapping: bisect (linear overall)
    in_field = lambda i: (k := bisect.bisect_right(starts, i) - 1) >= 0 and i < line.fields[k][1]
    text_end = len(body.rstrip())
    cuts = [m for m in _SENTENCE_END.finditer(body) if not in_field(m.start()) and m.end() < text_end]
    bounds, begin = [], 0
    for m in cuts:
        bounds.append((begin, m.start("space"), m.end("space")))  # (sentence start, its end, next start)
        begin = m.end("space")
    bounds.append((begin, len(body), len(body)))
    spans = [(fa, fb) for fa, fb, n in line.fields if n is target]
    a, b = next(((s, e) for s, e, _ in bounds if any(s <= fa and fb <= e for fa, fb in spans)), (None, None))
    if a is None:
        return None
    before = _neighbour(lines, index, -1)
    after = _neighbour(lines, index, 1)
    continues_from = a == 0 and before is not None and not _TERMINATED.search(before.body.rstrip()) \
        and body.lstrip()[:1].islower()
    continues_to = b == len(body) and after is not None and not _TERMINATED.search(body.rstrip()) \
        and after.body.lstrip()[:1].islower()
    if continues_from or continues_to:
        return None
    if len(bounds) == 1:
        return line, None
    if any(n is not target and a <= fa and fb <= b for fa, fb, n in line.fields):
        return None
    indent = _indent(body)
    k = next(i for i, (s, _, _) in enumerate(bounds) if s == a)
    if k == 0:
        moved = line.part(0, b)
        stays = line.part(bounds[1][0], len(body), prefix=indent)
    else:
        moved = line.part(a, b, prefix=indent)
        stays = _join(line.part(0, bounds[k - 1][1], brk=""), line.part(b, len(body)))
    return moved, stays


def _join(first: _Line, second: _Line) -> _Line:
    """One line: `first` (without a break) then `second`, fields kept as fields."""
    line = _Line(brk=second.brk)
    for piece in (first, second):
        text, cursor = piece.text, 0
        for fa, fb, node in piece.fields:
            if fa > cursor:
                line.add_literal(text[cursor:fa])
            line.add_field(text[fa:fb], node)
            cursor = fb
        if len(text) > cursor:
            line.add_literal(text[cursor:])
    return line


def _neighbour(lines: list[_Line], index: int, step: int) -> _Line | None:
    """The line just before (step -1) or after (step 1) `index` when it has text, else None (a
    blank line ends a paragraph)."""
    i = index + step
    if 0 <= i < len(lines) and lines[i].body.strip():
        return lines[i]
    return None


_TAG_LINE = re.compile(r"<(/?)(?=([A-Za-z][\w.:-]*))\2[^<>]*?(/?)>")  # the name taken whole: linear
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


def _move_operand(module, node: cst.CSTNode, message: str,
                  is_static: Callable[[cst.CSTNode], bool] | None) -> Fix | None:
    parent_of = parents(module)
    child, parent = node, parent_of.get(node)
    while parent is not None and not _is_chain(parent, child):
        if isinstance(parent, (cst.BaseStatement, cst.BaseSmallStatement, cst.Lambda)):
            return None
        child, parent = parent, parent_of.get(parent)
    if parent is None:
        return None
    chain_type = type(parent)
    root = parent
    while not root.lpar and isinstance(parent_of.get(root), chain_type) and (
            chain_type is cst.ConcatenatedString or (
                isinstance(parent_of[root].operator, cst.Add) and parent_of[root].left is root)):
        root = parent_of[root]
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
    extents = [extent(module, op) for op in operands]
    texts = [source_of(module, op) for op in operands]
    seps = [text_slice(module, extents[i][1], extents[i + 1][0]) for i in range(len(operands) - 1)]
    if any("#" in sep for sep in seps):
        return None  # comments would end up next to the wrong operand
    order = texts[:index] + texts[index + 1:] + [texts[index]]
    text = order[0] + "".join(sep + op for sep, op in zip(seps, order[1:]))
    edit = Edit(text, extents[0][0], extents[-1][1])
    return checked(module, root, [edit], UNSAFE, message)


@sure
def move_to_end_fix(module, node: cst.CSTNode, message: str | None = None,
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
    A move happens only when a static line / operand (a str literal with visible text, or a
    line of fields whose expressions `is_static(node)` says are static, by default names
    written in capitals; `is_static` decides for operands when given) follows, so repeated fixes converge with
    all static text first (static text keeps its order). None when no edit is sure (one-line
    f-string, a fragment of a line, `.format`, templates).
    """
    message = message or f"Move `{short(module.code(node))}` to the end of the prompt text"
    parent_of = parents(module)
    field_node, current = None, node
    while current is not None and not isinstance(current, cst.BaseStatement):
        parent = parent_of.get(current)
        if isinstance(current, cst.FormattedStringExpression) and isinstance(parent, cst.FormattedString):
            field_node = current
            break
        current = parent
    if field_node is not None:
        fix = _move_line(module, parent_of[field_node], field_node, message, is_static)
        if fix is not None:
            return fix
    return _move_operand(module, node, message, is_static)
