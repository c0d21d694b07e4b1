"""`{% include %}`, `{% extends %}` and `{% import %}` / `{% from ... import %}`: resolving
another template file within the search paths (the template's folder and its ancestors after
them), parsing it once per run, and walking it with the same walker. Templates are never rendered.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from jinja2 import nodes
from jinja2.exceptions import TemplateSyntaxError

from .. import source
from ..model import Kind, Segment, Volatility
from .jinja_source import _read, _Source, _Tag

_MAX_DEPTH = 12


@dataclass
class _Context:
    bindings: dict[str, Segment]
    search_paths: list[Path]
    display_root: Path | None
    templates: list[str] = field(default_factory=list)
    parsed: dict[Path, "_Source | None"] = field(default_factory=dict)


class _Includes:
    """Other template files of one template (a mixin of `jinja._Walker`)."""

    def _include(self, node: nodes.Include) -> list[Segment]:
        tag = self._block_tag(node, "include")
        segs = self._subtemplate(node.template, local_vars=self.vars if node.with_context else {})
        if segs is not None:
            return segs
        if node.ignore_missing:
            return []
        return [self._unresolved(node, "include", tag)]

    def _import(self, node: nodes.Import | nodes.FromImport) -> None:
        self._block_tag(node, "import", "from")
        walker = self._sub_walker(node.template, definitions_only=True)
        if walker is None:
            return
        exported = {**walker.macros, **{k: v[0] for k, v in walker.vars.items()}}
        if isinstance(node, nodes.Import):
            self.namespaces[node.target] = exported
            return
        for item in node.names:
            name, alias = item if isinstance(item, tuple) else (item, item)
            if name in exported:
                self.macros[alias] = exported[name]

    def _subtemplate(self, template: nodes.Expr, local_vars: dict | None = None,
                     overrides: dict | None = None) -> list[Segment] | None:
        walker = self._sub_walker(template, local_vars, overrides)
        return walker.run() if walker is not None else None

    def _sub_walker(self, template: nodes.Expr, local_vars: dict | None = None,
                    overrides: dict | None = None, definitions_only: bool = False) -> "_Includes | None":
        names = [template.value] if isinstance(template, nodes.Const) else (
            [i.value for i in template.items if isinstance(i, nodes.Const)]
            if isinstance(template, (nodes.List, nodes.Tuple)) else [])
        for name in names:
            found = self._resolve(name) if isinstance(name, str) else None
            if found is None or found in self.stack or len(self.stack) >= _MAX_DEPTH:
                continue
            source = self._load(found)
            if source is None:
                continue
            display = _display(found, self.ctx.display_root)
            self.ctx.templates.append(display)
            walker = type(self)(self.ctx, source, found, display, self.stack + [found], local_vars, overrides)
            if definitions_only:  # an import: only its macros and top-level variables matter
                walker.stmts(source.tree.body)
            return walker
        return None

    def _resolve(self, name: str) -> Path | None:
        parts = [p for p in name.replace("\\", "/").split("/") if p and p != "."]
        if not parts or ".." in parts:
            return None
        here = self.path.resolve().parent
        roots = list(self.ctx.search_paths) + [here] + list(here.parents)[:4]
        for root in roots:
            candidate = Path(root).joinpath(*parts)
            if source.is_file(candidate):  # a dependency of the analysis, found or not
                return candidate.resolve()
        return None

    def _load(self, path: Path) -> _Source | None:
        if path not in self.ctx.parsed:
            try:
                self.ctx.parsed[path] = _Source.parse(_read(path))
            except (OSError, UnicodeDecodeError, TemplateSyntaxError):
                self.ctx.parsed[path] = None
        return self.ctx.parsed[path]

    def _unresolved(self, node: nodes.Node, what: str, tag: _Tag | None = None) -> Segment:
        src = tag.inner if tag else what
        return Segment(span=self._tag_span(tag, node), kind=Kind.UNKNOWN, volatility=Volatility.UNKNOWN,
                       expr=src,
                       evidence=f"`{{% {src} %}}`: template not found in the search paths (or not parsable)")


def _display_root(path: Path, filename: str) -> Path | None:
    """The folder that display filenames are relative to, from a path and its display name."""
    shown = Path(filename)
    if shown.is_absolute():
        return None
    resolved = path.resolve()
    n = len(shown.parts)
    if n and resolved.parts[-n:] == shown.parts:
        return Path(*resolved.parts[:-n]) if len(resolved.parts) > n else Path(resolved.anchor)
    return None


def _display(path: Path, root: Path | None) -> str:
    if root is not None:
        try:
            return path.resolve().relative_to(root).as_posix()
        except ValueError:
            pass
    from ..paths import display_name
    return display_name(path)
