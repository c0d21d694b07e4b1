"""One parsed Python file: its `ast` tree, positions in characters, imports and top-level names.

`ast` gives every node a position for free, but its columns are UTF-8 byte offsets: `Module`
turns them into the 1-based character columns of the JSON contract. String literals are read
from the source by `strings.scan` (exact places inside implicit concatenations and f-strings, on
every Python version).
"""
from __future__ import annotations

import ast
import bisect
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..model import Position, Span
from ..paths import display_name
from . import strings
from .parsing import parse
from .import_roots import package_of  # noqa: F401  (read by the tree from here)
from .walk import last_name, statements, subtree  # noqa: F401  (statements: read by the fact finders from here)


def callee_name(call: ast.Call) -> str:
    """The last name of what a call calls (`obj.method(...)` -> "method", `f(...)` -> "f"), or ""."""
    return last_name(call.func)


#: An import statement inside a block: only a module holding one has imports inside functions.
_INDENTED_IMPORT = re.compile(r"^[ \t]+(?:from[ \t]+\S+[ \t]+import|import)[ \t]", re.M)


def unparsed(node: ast.AST) -> str:
    """`ast.unparse(node)`, computed once per node (kept on the node: trees are never changed
    after parsing). The fields of a dataclass are read at each call of its constructor, and each
    annotation was unparsed again to find `ClassVar` (about 1% of a corpus run)."""
    memo = getattr(node, "_promptlint_unparsed", None)
    if memo is None:
        memo = node._promptlint_unparsed = ast.unparse(node)
    return memo


def _late_imports(module: "Module") -> list[tuple[int, int, dict[str, str]]]:
    """Each function of `module` holding imports (in its body or a nested one): (first line, last
    line, {local name: dotted name}). One walk of the tree."""
    package = _package(module)
    funcs, imports = [], []
    for node in statements(module.tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            funcs.append(node)
        elif isinstance(node, (ast.Import, ast.ImportFrom)) and node.col_offset > 0:
            imports.append(node)
    table = []
    for func in funcs:
        names: dict[str, str] = {}
        end = func.end_lineno or func.lineno
        for node in sorted((i for i in imports if func.lineno <= i.lineno <= end), key=lambda i: (i.lineno, i.col_offset)):
            if isinstance(node, ast.Import):
                for a in node.names:
                    names[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
            else:
                base = _from_base(node, package)
                for a in node.names:
                    if a.name != "*":
                        names[a.asname or a.name] = f"{base}.{a.name}" if base else a.name
        if names:
            table.append((func.lineno, end, names))
    return table


def self_attr(node) -> str | None:
    """"x" for `self.x`, else None."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return node.attr
    return None


def attribute_chain(expr: ast.AST) -> list[str]:
    """The names of a dotted expression, outermost first: `a.b.c` -> ["a", "b", "c"]; when its
    root is not a name, its attributes only (`f().b.c` -> ["b", "c"])."""
    names: list[str] = []
    node = expr
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        names.append(node.id)
    return names[::-1]


def is_static_method(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """True for a function decorated `@staticmethod`: as a method, its first parameter is not
    the receiver."""
    return any(attribute_chain(d.func if isinstance(d, ast.Call) else d)[-1:] == ["staticmethod"]
               for d in fn.decorator_list)


def dotted_parts(expr: ast.AST) -> tuple[str, list[str]] | None:
    """`a.b.c` -> ("a", ["b", "c"]); None when the expression is not a dotted name."""
    attrs: list[str] = []
    node = expr
    while isinstance(node, ast.Attribute):
        attrs.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return node.id, attrs[::-1]


@dataclass(eq=False)
class Module:
    """One parsed Python file.

    `imports` maps a local name to the dotted name it stands for (`dt` -> `datetime.datetime`,
    relative imports made absolute when the package is known). `functions` and `classes` hold
    the top-level definitions by name; `assigns` the top-level assignments (name -> assigned value
    nodes, in source order). Positions: `span(node)` is 1-based rows and 1-based character columns.
    """

    path: Path
    filename: str
    dotted: str | None
    source: str
    tree: ast.Module
    imports: dict[str, str] = field(default_factory=dict)
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=dict)
    classes: dict[str, ast.ClassDef] = field(default_factory=dict)
    assigns: dict[str, list[ast.expr]] = field(default_factory=dict)
    facts: dict = field(default_factory=dict, repr=False)  # module facts the site finder states for module rules
    _starts: list[int] | None = field(default=None, repr=False)
    _ascii: bool | None = field(default=None, repr=False)  # `source.isascii()`, read on first need
    _pieces: dict = field(default_factory=dict, repr=False)

    def late_import(self, name: str, at: ast.AST | None) -> str | None:
        """The dotted name `name` stands for at node `at` through an import inside a function
        around it (`from pkg import templates` in a method, as code does to avoid an import
        cycle; the innermost such function), or None. Read once per module, on first need."""
        line = getattr(at, "lineno", None)
        if line is None:
            return None
        by_name = self._pieces.get("late imports")
        if by_name is None:  # name -> [(first line, last line, dotted name)] of the functions importing it
            by_name = {}
            for start, end, names in _late_imports(self) if _INDENTED_IMPORT.search(self.source) else []:
                for local, dotted in names.items():
                    by_name.setdefault(local, []).append((start, end, dotted))
            self._pieces["late imports"] = by_name
        found, size = None, None
        for start, end, dotted in by_name.get(name, ()):  # the innermost (the first of the shortest)
            if start <= line <= end and (size is None or end - start < size):
                found, size = dotted, end - start
        return found

    def imports_from(self, *packages: str) -> bool:
        """True when one of the module's top-level imports is from one of `packages` (top-level
        package names: `imports_from("anthropic")` holds for `from anthropic.types import ...`)."""
        return any(v.split(".", 1)[0] in packages for v in self.imports.values())

    def mentions(self, text: str) -> bool:
        """True when the source holds `text` (searched once per module and text): a syntax that
        is absent from the text is in no node (`:=`, an assignment expression)."""
        key = ("mentions", text)
        found = self._pieces.get(key)
        if found is None:
            found = self._pieces[key] = text in self.source
        return found

    @property
    def digest(self) -> str:
        """sha256 (hex) of the source text: what anchors of fixes refer to."""
        value = self._pieces.get("digest")
        if value is None:
            import hashlib
            value = self._pieces["digest"] = hashlib.sha256(self.source.encode("utf-8", "surrogatepass")).hexdigest()
        return value

    # ---------------------------------------------------------------- positions
    @property
    def line_starts(self) -> list[int]:
        """Character offset where each row starts (row 1 at index 0); rows split on "\\n" only."""
        if self._starts is None:
            starts = [0]
            src = self.source
            i = src.find("\n")
            while i != -1:
                starts.append(i + 1)
                i = src.find("\n", i + 1)
            self._starts = starts
        return self._starts

    def line(self, row: int) -> str:
        """The text of 1-based `row`, without its line break."""
        starts = self.line_starts
        if row < 1 or row > len(starts):
            return ""
        end = starts[row] - 1 if row < len(starts) else len(self.source)
        return self.source[starts[row - 1]:end]

    def char_col(self, row: int, byte_col: int) -> int:
        """The 0-based character column of a 0-based UTF-8 byte column on 1-based `row`
        (constant time after the first call for a row: a long line with many nodes stays linear;
        in a module of ASCII text, the byte column itself)."""
        ascii_text = self._ascii
        if ascii_text is None:
            ascii_text = self._ascii = self.source.isascii()
        if ascii_text:
            return byte_col
        key = ("cols", row)
        cols = self._pieces.get(key)
        if cols is None:
            text = self.line(row)
            cols = self._pieces[key] = True if text.isascii() else _char_columns(text)
        if cols is True:
            return byte_col
        return cols[min(max(byte_col, 0), len(cols) - 1)]

    def offset(self, row: int, byte_col: int) -> int:
        """The 0-based character offset in `source` of an `ast` position."""
        starts = self.line_starts
        return starts[min(max(row, 1), len(starts)) - 1] + self.char_col(row, byte_col)

    def position_at(self, offset: int) -> Position:
        """The 1-based (row, column) of a 0-based character offset."""
        starts = self.line_starts
        i = bisect.bisect_right(starts, offset) - 1
        return Position(i + 1, offset - starts[i] + 1)

    def start(self, node: ast.AST) -> Position:
        row = getattr(node, "lineno", 1) or 1
        return Position(row, self.char_col(row, getattr(node, "col_offset", 0) or 0) + 1)

    def span(self, node: ast.AST) -> Span:
        """The node's span (1-based rows and character columns, end exclusive); computed once
        per node (kept on the node with the source text and file name it was computed for: no
        reference from the tree back to its Module, so a dropped module is freed at once)."""
        memo = getattr(node, "_promptlint_span", None)
        if memo is not None and memo[0] is self.source and memo[1] is self.filename:
            return memo[2]
        row = getattr(node, "lineno", None)
        if row is None:
            return Span(self.filename, Position(1, 1), Position(1, 1))
        end_row = getattr(node, "end_lineno", None) or row
        end_col = getattr(node, "end_col_offset", None)
        start = Position(row, self.char_col(row, node.col_offset) + 1)
        end = Position(end_row, self.char_col(end_row, end_col) + 1) if end_col is not None else start
        span = Span(self.filename, start, end)
        node._promptlint_span = (self.source, self.filename, span)
        return span

    def offsets(self, node: ast.AST) -> tuple[int, int]:
        """0-based character offsets of the node's start and end in `source`."""
        a = self.offset(node.lineno, node.col_offset)
        b = self.offset(node.end_lineno or node.lineno, node.end_col_offset if node.end_col_offset is not None
                        else node.col_offset)
        return a, b

    def span_of(self, start: int, end: int) -> Span:
        """The span of 0-based character offsets `start`..`end`."""
        return Span(self.filename, self.position_at(start), self.position_at(end))

    def code(self, node: ast.AST) -> str:
        """Source text of a node, stripped; computed once per node (kept on the node with the
        source text it was cut from, as `span` keeps its span: the evaluator asks for the text
        of the same nodes again and again, 174,000 times a corpus run)."""
        memo = getattr(node, "_promptlint_code", None)
        if memo is not None and memo[0] is self.source:
            return memo[1]
        if getattr(node, "lineno", None) is None:
            return ""
        a, b = self.offsets(node)
        text = self.source[a:b].strip()
        node._promptlint_code = (self.source, text)
        return text

    def pieces(self, node: ast.Constant | ast.JoinedStr) -> list | None:
        """The literal pieces and f-string fields of a string node (`strings.scan`), or None when
        its source cannot be read as string tokens."""
        key = id(node)
        if key not in self._pieces:
            try:
                a, b = self.offsets(node)
                self._pieces[key] = (node, strings.scan(self.source, a, b))
            except (ValueError, IndexError):
                self._pieces[key] = (node, None)
        return self._pieces[key][1]

    def field_expr(self, fld: strings.Field) -> ast.expr | None:
        """The expression of an f-string field, parsed from its own text with positions in this
        file (exact on every Python version), or None."""
        key = ("field", fld.expr_start)
        cached = self._pieces.get(key)
        if cached is not None:
            return cached[1]
        text = self.source[fld.expr_start:fld.expr_end]
        try:
            expr = ast.parse("(" + text + "\n)", mode="eval").body
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            self._pieces[key] = (None, None)
            return None
        base = self.position_at(fld.expr_start)
        base_starts = [0]
        i = text.find("\n")
        while i != -1:
            base_starts.append(i + 1)
            i = text.find("\n", i + 1)
        for sub in subtree(expr):
            if getattr(sub, "lineno", None) is None:
                continue
            sub.lineno, sub.col_offset = _shift(text, base_starts, base, sub.lineno, sub.col_offset, self)
            if sub.end_lineno is not None:
                sub.end_lineno, sub.end_col_offset = _shift(text, base_starts, base, sub.end_lineno,
                                                            sub.end_col_offset, self)
        self._pieces[key] = (expr, expr)
        return expr

    # ---------------------------------------------------------------- names
    def qualified_name(self, expr: ast.AST) -> str | None:
        """The dotted name an expression stands for through the imports (`dt.now` ->
        `datetime.datetime.now`; also an import inside a function), the plain dotted text for
        unimported names, None otherwise. Computed once per node (kept on it, as `code` keeps its
        text: the evaluator asks it of every call and attribute it reads, again and again)."""
        memo = getattr(expr, "_promptlint_qual", None)
        if memo is not None and memo[0] is self.source:
            return memo[1]
        split = dotted_parts(expr)
        if split is None:
            found = None
        else:
            name, attrs = split
            found = ".".join([self.imports.get(name) or self.late_import(name, expr) or name, *attrs])
        expr._promptlint_qual = (self.source, found)
        return found


def _char_columns(text: str):
    """For each UTF-8 byte offset of `text` (and its end), the number of characters before it,
    as `len(text.encode()[:offset].decode("utf-8", "replace"))` counts them (a cut inside a
    character counts that character)."""
    from array import array
    cols = array("I")
    for i, char in enumerate(text):
        width = len(char.encode("utf-8", "surrogatepass"))
        cols.append(i)
        cols.extend([i + 1] * (width - 1))
    cols.append(len(text))
    return cols


def _shift(text: str, starts: list[int], base: Position, row: int, col: int, module: Module) -> tuple[int, int]:
    """Map a position inside "(" + text (row 1 col counted after the "(") to this file's `ast`
    position (1-based row, 0-based UTF-8 byte column)."""
    line_index = row - 1
    line_start = starts[min(line_index, len(starts) - 1)]
    line_text = text[line_start:]
    nl = line_text.find("\n")
    line_text = line_text if nl == -1 else line_text[:nl]
    byte_col = col - (1 if line_index == 0 else 0)
    char_col = len(line_text.encode("utf-8")[:max(byte_col, 0)].decode("utf-8", "replace"))
    file_row = base.row + line_index
    file_char = (base.column - 1 + char_col) if line_index == 0 else char_col
    file_line = module.line(file_row)
    return file_row, len(file_line[:file_char].encode("utf-8"))


def index(module: Module) -> None:
    """Fill the module's top-level definitions and imports (also inside top-level `if` / `try`
    blocks such as `if TYPE_CHECKING:`) without walking the whole tree."""
    package = _package(module)
    stack = list(module.tree.body)
    while stack:
        stmt = stack.pop(0)
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            module.functions[stmt.name] = stmt
        elif isinstance(stmt, ast.ClassDef):
            module.classes[stmt.name] = stmt
        elif isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    module.assigns.setdefault(target.id, []).append(stmt.value)
        elif isinstance(stmt, ast.AnnAssign):
            if isinstance(stmt.target, ast.Name) and stmt.value is not None:
                module.assigns.setdefault(stmt.target.id, []).append(stmt.value)
        elif isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname:
                    module.imports[alias.asname] = alias.name
                else:
                    head = alias.name.split(".")[0]
                    module.imports.setdefault(head, head)
        elif isinstance(stmt, ast.ImportFrom):
            _import_from(module, stmt, package or "")
        elif isinstance(stmt, ast.If):
            stack.extend(stmt.body)
            stack.extend(stmt.orelse)
        elif isinstance(stmt, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            stack.extend(stmt.body)
            for handler in stmt.handlers:
                stack.extend(handler.body)


def star_imports(module: Module) -> list[str]:
    """The modules `module` imports every public name of at module level (`from .agent import *`,
    also inside a `try` or an `if` there, as code does for a fallback import), absolute dotted
    names in statement order. Computed once per module."""
    found = module.facts.get("star_imports")
    if found is None:
        found = module.facts["star_imports"] = []
        if "import *" in module.source:
            package = _package(module)
            todo = list(module.tree.body)
            while todo:
                node = todo.pop(0)
                if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
                    base = _from_base(node, package)
                    if base:
                        found.append(base)
                elif isinstance(node, (ast.If, ast.Try)):
                    todo[:0] = [*node.body, *getattr(node, "handlers", ()), *node.orelse,
                                *getattr(node, "finalbody", ())]
                elif isinstance(node, ast.ExceptHandler):
                    todo[:0] = node.body
    return found


def _package(module: Module) -> str:
    """The dotted name of the package a module's relative imports start from ("" for none)."""
    dotted = module.dotted
    return dotted if module.path.stem == "__init__" else (dotted.rpartition(".")[0] if dotted else "")


def _from_base(node: ast.ImportFrom, package: str) -> str:
    """The absolute module name of `from BASE import ...` (relative levels resolved in `package`)."""
    base = node.module or ""
    if node.level:
        pkg = package.split(".") if package else []
        pkg = pkg[: len(pkg) - (node.level - 1)] if node.level > 1 else pkg
        base = ".".join([*pkg, base] if base else pkg)
    return base


def import_of(module: Module, dotted: str) -> ast.stmt | None:
    """The first import statement of `module` (anywhere in it) that names the module `dotted`:
    `import dotted` (or a package or submodule of it), `from dotted import x`, `from pkg import
    mod` for `pkg.mod`; None when no statement of this module names it (it is imported through
    another module)."""
    def related(name: str) -> bool:
        return name == dotted or name.startswith(dotted + ".") or dotted.startswith(name + ".")

    package = _package(module)
    found = []
    for node in statements(module.tree):
        if isinstance(node, ast.Import):
            hit = any(related(alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _from_base(node, package)
            hit = base == dotted or (bool(base) and any(f"{base}.{a.name}" == dotted for a in node.names))
        else:
            continue
        if hit:
            found.append(node)
    return min(found, key=lambda n: (n.lineno, n.col_offset), default=None)


def _import_from(module: Module, node: ast.ImportFrom, package: str) -> None:
    base = _from_base(node, package)
    for alias in node.names:
        if alias.name == "*":
            continue
        local = alias.asname or alias.name
        module.imports[local] = f"{base}.{alias.name}" if base else alias.name


_UNKNOWN = object()


def load(path: Path, source: str, dotted: str | None = _UNKNOWN, filename: str | None = None) -> Module:
    """A Module for `source` read from `path` (`dotted`: its dotted name, `import_roots.package_of`;
    `filename`: its display name; each found from `path` when not given). Raises ParseError."""
    tree = parse(source, str(path))
    if dotted is _UNKNOWN:
        dotted, _ = package_of(path)
    module = Module(path=path, filename=filename or display_name(path), dotted=dotted, source=source, tree=tree)
    index(module)
    return module
