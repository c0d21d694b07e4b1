"""A running summary an instance rewrites as its conversation grows and sends at the head of that
conversation (PRM105): a class with

- a method that keeps only the newest part of a list attribute (a slice counted from its end,
  `runs[: len(runs) - self.offset]`, `self.messages[-k:]`, or `.pop(0)` in a `while` loop) and
  writes another attribute from a call given that attribute's old value
  (`self.summary = self.summarize_runs(self.summary, runs_to_summarize)`): the text folded from
  the turns that leave the kept part, written again each time one leaves;
- and a method that writes a message from that attribute (`stack.add_user_message(
  tmpl.render(summary=self.summary))`, `messages.append({"role": "system", "content":
  self.summary})`) before a statement that adds the items of the list (a loop over it, or over a
  method of the class that returns part of it: `for r in self.unsummarized_runs(last_n):`).

The summary message is the first message of the conversation, so each rewrite changes the
history from its head on. Reported where the attribute is rewritten (no send call is linked:
info), the message written from it as a related location.
"""
from __future__ import annotations

import ast
import re

from .module import self_attr, statements
from .walk import subtree

#: An attribute written from a call given its own old value (`self.summary = self.fold(self.summary,
#: runs)`): the text a module holds for a running summary (read by the pre-filter and `sites`).
REWRITTEN = re.compile(r"self\.(\w{1,60})[ \t]{0,4}=[ \t]{0,4}[\w.]{1,80}\([^\n]{0,200}self\.\1\b")
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_GROWS = ("append", "insert", "extend")


def _reads(node, attr: str) -> bool:
    return any(self_attr(n) == attr for n in subtree(node))


def _from_end(node) -> bool:
    """True for a slice bound counted from the end of a list: a negative number or `len(x) - k`."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return True
    return any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub) and isinstance(n.left, ast.Call)
               and isinstance(n.left.func, ast.Name) and n.left.func.id == "len" for n in subtree(node))


def _keeps_newest(func) -> bool:
    """True when `func` slices a list from its end, or pops its oldest item in a `while` loop."""
    for n in subtree(func):
        if isinstance(n, ast.Slice) and any(b is not None and _from_end(b) for b in (n.lower, n.upper)):
            return True
        if isinstance(n, ast.While) and any(
                isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr == "pop"
                and len(c.args) == 1 and isinstance(c.args[0], ast.Constant) and c.args[0].value == 0
                for c in subtree(n)):
            return True
    return False


def _rewrites(func, lists: set[str]) -> list[tuple[ast.Assign, str, str]]:
    """(assignment, attribute, list) for each `self.a = f(..., self.a, ...)` of `func`, a method
    that reads the list attribute and keeps its newest part."""
    read = [a for a in lists if _reads(func, a)]
    if not read or not _keeps_newest(func):
        return []
    out = []
    for n in subtree(func):
        if not (isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.value, ast.Call)):
            continue
        attr = self_attr(n.targets[0])
        if attr is None or attr in lists:
            continue
        given = [*n.value.args, *(k.value for k in n.value.keywords)]
        if any(_reads(g, attr) for g in given):
            out.append((n, attr, read[0]))
    return out


def _list_readers(cls, attr: str) -> set[str]:
    """The methods of `cls` that read `self.attr` and return a value (a part of it, in a local name
    or not: `return self.runs[self.summary_index:]`)."""
    return {f.name for f in cls.body if isinstance(f, _FUNCS) and _reads(f, attr) and any(
        isinstance(r, ast.Return) and r.value is not None for r in subtree(f))}


def _items_added(stmt, attr: str, readers: set[str]) -> bool:
    """True for a loop over `self.attr` (or over a method of `readers`) whose body adds messages."""
    if not isinstance(stmt, (ast.For, ast.AsyncFor)):
        return False
    over = _reads(stmt.iter, attr) or any(
        isinstance(c, ast.Call) and self_attr(c.func) in readers for c in subtree(stmt.iter))
    return over and any(isinstance(c, ast.Call) for s in stmt.body for c in subtree(s))


def _head_message(func, summary: str, attr: str, readers: set[str]) -> ast.AST | None:
    """The statement of `func` that adds a message written from `self.summary` (a call given it),
    when a later statement of the same block adds the list's items; else None."""
    for block in (s for s in subtree(func) if hasattr(s, "body") and isinstance(getattr(s, "body"), list)):
        body = block.body
        for i, stmt in enumerate(body):
            if not isinstance(stmt, (ast.Expr, ast.If)):
                continue
            calls = [c for c in subtree(stmt) if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)
                     and c.func.attr.startswith(("add", "append", "insert"))
                     and any(_reads(a, summary) for a in [*c.args, *(k.value for k in c.keywords)])]
            if calls and any(_items_added(later, attr, readers) for later in body[i + 1:]):
                return calls[0]
    return None


def summary_heads(module) -> list[tuple[ast.Assign, str, ast.AST]]:
    """(the rewrite, `self.attr`, the message written from it) for each running summary a class
    of the module rewrites as its list grows and sends before that list's items."""
    out = []
    for cls in statements(module.tree):
        if not isinstance(cls, ast.ClassDef):
            continue
        funcs = [f for f in cls.body if isinstance(f, _FUNCS)]
        lists = {a for f in funcs for n in subtree(f) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                 and n.func.attr in _GROWS and (a := self_attr(n.func.value)) is not None}
        if not lists:
            continue
        seen = set()
        for func in funcs:
            for assign, summary, attr in _rewrites(func, lists):
                if summary in seen:
                    continue
                readers = _list_readers(cls, attr)
                head = next((h for f in funcs if f is not func
                             and (h := _head_message(f, summary, attr, readers)) is not None), None)
                if head is not None:
                    seen.add(summary)
                    out.append((assign, f"self.{summary}", head))
    return out
