"""What every fix builder shares: node extents, source slices and the check of an edited node.

A builder works on a parsed module (`codemod.module.CstModule`): `.tree` (libcst Module),
`.source` (the text the positions refer to), `.positions` (libcst PositionProvider results),
`.code(node)`, `.qualified_name(expr)` and `.imports`. Every position comes from `module.positions`; PositionProvider leaves
a node's own parentheses out, so `extent` widens a span to its first `lpar` and last `rpar`.
Before returning, a builder applies its edits to the node's source and re-parses the result with
`ast` and libcst; a builder that cannot make a sure edit returns None (`sure`).
"""
from __future__ import annotations

import ast
import functools

import libcst as cst

from ..fix import EditError, _line_starts, _offset, apply_edits
from ..model import Applicability, Edit, Fix, Position

SAFE, UNSAFE = Applicability.SAFE, Applicability.UNSAFE


class NotSure(Exception):
    """Raised inside a builder when no edit is sure; the builder returns None."""


def pos(module, node: cst.CSTNode):
    rng = module.positions.get(node)
    if rng is None:
        raise NotSure(f"no position for {type(node).__name__}")
    return rng


def extent(module, node: cst.CSTNode) -> tuple[Position, Position]:
    """The node's 1-based (start, end), end exclusive, including its own parentheses."""
    lpar, rpar = getattr(node, "lpar", None), getattr(node, "rpar", None)
    first = lpar[0] if isinstance(lpar, (list, tuple)) and lpar else node
    last = rpar[-1] if isinstance(rpar, (list, tuple)) and rpar else node
    start, end = pos(module, first).start, pos(module, last).end
    return Position(start.line, start.column + 1), Position(end.line, end.column + 1)


def bare_extent(module, node: cst.CSTNode) -> tuple[Position, Position]:
    """The node's 1-based (start, end) without its own parentheses (as PositionProvider says)."""
    rng = pos(module, node)
    return Position(rng.start.line, rng.start.column + 1), Position(rng.end.line, rng.end.column + 1)


def line_starts(module) -> list[int]:
    cache = module.__dict__.get("_fix_line_starts")
    if cache is None or cache[0] is not module.source:
        cache = (module.source, _line_starts(module.source))
        module.__dict__["_fix_line_starts"] = cache
    return cache[1]


def offset(module, position: Position) -> int:
    """The 0-based index in `module.source` of a 1-based position. Raises NotSure."""
    try:
        return _offset(line_starts(module), module.source, position)
    except EditError as exc:
        raise NotSure(str(exc)) from exc


def text_slice(module, start: Position, end: Position) -> str:
    return module.source[offset(module, start):offset(module, end)]


def source_of(module, node: cst.CSTNode) -> str:
    """The node's source text (with its parentheses), checked against libcst's own rendering
    up to whitespace (`code_for_node` drops the indentation of continuation lines in blocks)."""
    text = text_slice(module, *extent(module, node))
    if "".join(text.split()) != "".join(module.tree.code_for_node(node).split()):
        raise NotSure("span does not match the node")
    return text


def parses(text: str) -> bool:
    """True when `text` is an expression both Python's parser and libcst accept (in parentheses,
    so line breaks inside are allowed as in any bracketed context)."""
    try:
        ast.parse(f"({text}\n)", mode="eval")
        cst.parse_expression(f"({text}\n)")
    except (SyntaxError, ValueError, cst.ParserSyntaxError, RecursionError, MemoryError):
        return False
    return True


def relative(position: Position, origin: Position) -> Position:
    """`position` in the coordinates of a text that starts at `origin`."""
    if position.row == origin.row:
        return Position(1, position.column - origin.column + 1)
    return Position(position.row - origin.row + 1, position.column)


def checked(module, node: cst.CSTNode, edits: list[Edit], applicability: Applicability,
            message: str) -> Fix:
    """A Fix of `edits` (all inside `node`) once the node's edited source re-parses."""
    start, _ = extent(module, node)
    before = source_of(module, node)
    try:
        shifted = [Edit(e.content, relative(e.start, start), relative(e.end, start)) for e in edits]
        after = apply_edits(before, shifted)
    except EditError as exc:
        raise NotSure(str(exc)) from exc
    if after == before or not parses(after):
        raise NotSure("the edited expression does not parse")
    return Fix(applicability, message, sorted(edits, key=lambda e: (e.start, e.end)))


def insert(content: str, at: Position) -> Edit:
    return Edit(content, at, at)


def parents(module) -> dict:
    """Node -> parent for the module's tree (computed once, kept on the module)."""
    return module.parents()


def sure(build):
    """Decorator: a builder that raises NotSure (or meets a node of another tree) returns None."""
    @functools.wraps(build)
    def wrapper(*args, **kwargs):
        try:
            return build(*args, **kwargs)
        except (NotSure, KeyError):
            return None
    return wrapper


def short(code: str, limit: int = 40) -> str:
    code = " ".join(code.split())
    return code if len(code) <= limit else code[: limit - 3] + "..."
