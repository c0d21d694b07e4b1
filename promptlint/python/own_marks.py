"""Breakpoint keys a file of the package names only where it sends a request itself: a fact for
PRM302's LangChain Claude model facts (python/langchain_models.py).

A file that names `cache_control` can set a breakpoint on any request its values reach: a
message list it returns, a system message it keeps at module level and hands to an agent. But a
file whose every mention of a breakpoint key sits in a function that also sends a request
itself (`model.with_structured_output(S).ainvoke([...{"cache_control": ...}])`, an evaluator's
one-shot call) and builds no agent there marks that request only: the agents and conversations
of other modules carry none of it. `marks_reach(module, project)` is False when every file of
the package that names a breakpoint key is such a file (and `module` names none itself): the
package sets no breakpoint on the requests of `module`'s model.
"""
from __future__ import annotations

import ast

from .packages import MARKER_WORDS
from .parsing import ParseError
from .tree_search import OverBudget

#: The methods and functions whose call sends a request: LangChain's runnables (`invoke`,
#: `ainvoke`, their streams and batches) and the SDKs' send calls.
_SENDS = frozenset({"invoke", "ainvoke", "stream", "astream", "batch", "abatch", "create", "acreate",
                    "completion", "acompletion", "converse", "converse_stream", "generate_content",
                    "generate_content_async", "invoke_model"})
#: Calls that build an agent or bind tools (an agent's every step carries the marks of its prompt);
#: langchain_models.AGENT_CALLS, repeated here to keep this module free of that one.
_AGENTS = frozenset({"create_react_agent", "bind_tools", "create_tool_calling_agent", "AgentExecutor", "create_agent"})
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def marks_reach(module, project) -> bool:
    """True when a breakpoint the package writes may reach the requests of `module`: `module`
    names a breakpoint key, or another file of its package tree (`marker_files`) names one
    outside a function that sends its own request (`marks_own_requests`), or cannot be read."""
    for path in project.marker_files(module.path):
        if path == module.path:
            return True
        try:
            other = project.load(path)
        except (ParseError, OverBudget):
            return True
        if not marks_own_requests(other):
            return True
    return False


def marks_own_requests(module) -> bool:
    """True when every place `module` names a breakpoint key in its code (a string, a name, an
    attribute, a keyword, a parameter; not a docstring) is in a function that sends a request in
    its own body (a call of `_SENDS`) and builds no agent (`_AGENTS`); False for a mention at module
    or class level."""
    return all(func is not None and _sends_itself(func) for func in _namers(module.tree, None))


def _namers(node, func) -> list:
    """The innermost function (None at module or class level) of each node under `node` that
    names a breakpoint key, docstrings left out."""
    out = []
    body = getattr(node, "body", None)
    doc = body[0].value if isinstance(node, (ast.Module, ast.ClassDef, *_FUNCS)) and body \
        and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) else None
    for child in ast.iter_child_nodes(node):
        if child is doc or isinstance(child, ast.Expr) and child.value is doc:
            continue
        if _names_key(child):
            out.append(func)
        out.extend(_namers(child, child if isinstance(child, _FUNCS) else func))
    return out


def _names_key(node) -> bool:
    word = node.value if isinstance(node, ast.Constant) else node.id if isinstance(node, ast.Name) else \
        node.attr if isinstance(node, ast.Attribute) else node.arg if isinstance(node, (ast.keyword, ast.arg)) else None
    return isinstance(word, str) and any(w in word for w in MARKER_WORDS)


def _sends_itself(func) -> bool:
    sends = False
    for n in ast.walk(func):
        if isinstance(n, ast.Call):
            name = n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", None)
            if name in _AGENTS:
                return False
            sends = sends or name in _SENDS
    return sends
