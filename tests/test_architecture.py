"""The package's import graph (issue "The Python analysis, rebuilt as facts, flow and registries"):
no import cycle (function-level imports included: they hid cycles before), the analysis
(`promptlint.python`, `promptlint.templates`) never imports rules or renderers, and no module is
longer than 600 lines."""
from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "promptlint"
MAX_LINES = 600


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Edges module -> imported module of the package, from every import statement (also inside
    functions); `from . import x` points at the submodule x when it is one."""
    graph: dict[str, set[str]] = defaultdict(set)
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    if sub in modules:
                        graph[name].add(sub)
                    elif target in modules and target != name:
                        graph[name].add(target)
            elif isinstance(node, ast.Import):
                graph[name].update(a.name for a in node.names if a.name in modules)
    return graph


def _cycles(graph: dict[str, set[str]], nodes) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


@pytest.fixture(scope="module")
def package() -> tuple[dict[str, Path], dict[str, set[str]]]:
    """The package's modules and their import graph, parsed once for the tests of the module."""
    modules = _modules()
    return modules, _graph(modules)


def test_no_import_cycle(package):
    modules, graph = package
    assert _cycles(graph, modules) == []


def test_the_analysis_never_imports_rules_or_renderers(package):
    modules, graph = package
    bad = {name: sorted(t for t in graph[name] if t.startswith(("promptlint.rules", "promptlint.report")))
           for name in modules if name.startswith(("promptlint.python", "promptlint.templates"))}
    assert {k: v for k, v in bad.items() if v} == {}


def test_the_checker_sees_a_cycle(tmp_path):
    """The cycle finder itself: two modules importing each other form one component."""
    graph = defaultdict(set, {"a": {"b"}, "b": {"a"}, "c": {"a"}})
    assert _cycles(graph, ["a", "b", "c"]) == [["a", "b"]]


def test_no_module_is_longer_than_600_lines():
    """Issue 10: one job per module; the goal is ~500 lines, the limit 600."""
    long = {path.relative_to(PACKAGE.parent).as_posix(): n for path in sorted(PACKAGE.rglob("*.py"))
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}
