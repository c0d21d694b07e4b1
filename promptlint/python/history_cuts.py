"""Cut conversations: a conversation cut to its newest messages (or with messages of its middle
removed) in a helper that returns it or keeps it on its instance (`return messages[-20:]`), read
as one history part judged by PRM105 where it is cut (docs/policies.md, Policy 9); the shapes of
code that cut a list, and the cut windows a value carries.
"""
from __future__ import annotations

import ast
import re

from ..classify import CONVERSATION_WORDS
from ..model import Kind, Part, Segment
from .candidates import speculative
from .prompt_names import summary_input_named, words
from .flow.callers import called_anywhere
from .flow.rewrites import marks_in
from .flow.values import Seq, Text
from .instance_calls import never_a_list
from .walk import child_nodes, subtree

#: Shapes of code that cut a list (a slice from the end, a slice that moves with a walk's index
#: (`xs[max(0, i - w + 1):i + 1]`), a newest-first walk, by `reversed` or by an
#: index, or kept newest first and put back in order (`kept.reverse()`), or by an
#: index from `len(xs) - 1` (`range(len(xs) - 1, 0, -1)`), a pop or del in a loop (not of a dict's key: `kwargs.pop("model", None)`;
#: also a remove of an item by index, `xs.remove(xs[0])`), LangChain's trim_messages, a `while` loop
#: that runs until a size (tokens, a length, a count) fits, on either side of the test, a message's content replaced): a function without one is not read
#: for a cut conversation. Three patterns (`cuts_text` reads them): those that start with a
#: character (searched fast), and the two that start at a word boundary, searched only when their
#: word is in the text.
_CUTS_CHARS = re.compile(r"\[\s*(?:\d+\s*\+\s*)?(?:max\(\s*0\s*,\s*)?(?:-|len\()[^\[\]\n]*:|\[\s*max\(\s*0\s*,\s*\w+\s*-[^\[\]\n]*:\s*\w+\s*(?:\+\s*1\s*)?\]|reversed\(|\[::-1\]|\.reverse\(\)|\.pop\((?!\s*[\"'])|\.remove\(\s*[\w.]+\[|trim_messages|=\s*(?:max\(\s*0\s*,\s*)?len\([^()\n]*\)\s*-|range\(\s*len\([^()]*\)\s*-\s*1\s*,[^\n]*-\s*1\s*\)"
                         r"|\[[\"']content[\"']\] = |\.content = ")
_CUTS_DEL = re.compile(r"\bdel\s+[\w.]+\[(?!\s*[\"'])")
_CUTS_WHILE = re.compile(r"\bwhile\b[^\n:]*(?:(?:tokens?\b|len\(|count\()[^\n:]*[<>]|[<>][^\n:]*(?:tokens?\b|len\(|count\())")
#: The three as one pattern (a match of it is a match of one of them).
CUTS = re.compile("|".join(p.pattern for p in (_CUTS_CHARS, _CUTS_DEL, _CUTS_WHILE)))


def cuts_text(source: str, start: int, end: int) -> bool:
    """True when `source[start:end]` (0-based character offsets) holds a shape that cuts a list
    (the patterns above, searched in that window)."""
    return _CUTS_CHARS.search(source, start, end) is not None \
        or (source.find("del", start, end) != -1 and _CUTS_DEL.search(source, start, end) is not None) \
        or (source.find("while", start, end) != -1 and _CUTS_WHILE.search(source, start, end) is not None)


def window(finder, node, value_node, func, own_only: bool = False) -> bool:
    """A conversation cut to its newest messages (or with messages of its middle removed) that a
    function returns or keeps on its instance (`return messages[-20:]`, `self.history =
    trim(self.history)`), outside a send call the analysis links it to: a candidate with one
    history part, reported where it is cut (PRM105). A cut rendered into text (`"\\n".join(...)`, an
    f-string) is not one: where that text goes in a request is not known (the end of a one-shot
    prompt loses nothing), nor is a cut kept on the instance by a method that adds nothing to it
    and that no code of the tree calls (`prune_history()`): it runs when the user asks, not on
    every turn, nor the input a function named for a summary request builds (`_bound_summarize_input`:
    a one-shot request, not the conversation re-sent). `own_only`: its
    parameters read as named only. True when one was added."""
    if func is None or value_node is None or summary_input_named(func.name) or not finder.reads_cut(func, value_node):
        return False  # (a summarizer's input, cut to fit its one request: no conversation re-sent)
    if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Attribute) \
            and not _grows(func, node.targets[0].attr) and not called_anywhere(finder.ev, finder.m, func):
        return False  # kept on the instance by a method only the user's code calls: a prune when asked
    finder.ev.reset_budget(speculative=True)  # (as `speculative` does: the callee is read on a budget of its own)
    if never_a_list(finder, value_node, finder.frame(True)):
        return False  # text or an instance (`return Output(raw=text, messages=kept)`): no cut conversation
    found = []
    for own in (True,) if own_only else (True, False):  # its parameters as named, then as its callers bind them
        value = speculative(finder, value_node, finder.frame(own))  # (read in case it is a cut conversation)
        if value is None:
            return False
        cut = windows_in(value)
        found = [s for s in cut if _conversation(s)]
        if found or not cut:
            break  # no list of it is cut whatever its parameters are named: its callers cannot make one
    for seg in found:  # beside a prompt recorded at `node`, or one of several: a layout named by the cut
        finder.b.add(node, "python-constant", None, None, None, [Part("history", [seg], span=seg.span)],
                     span=seg.window if own_only or len(found) > 1 else None)
    return bool(found)


def _grows(func, attr: str) -> bool:
    """True when `func` adds to `self.attr` (`.append`, `.extend`, `.insert`, `+=`): it cuts as it
    adds, on every message."""
    for n in subtree(func):
        target = n.func.value if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) \
            and n.func.attr in ("append", "extend", "insert") else n.target if isinstance(n, ast.AugAssign) else None
        if isinstance(target, ast.Attribute) and target.attr == attr and isinstance(target.value, ast.Name) \
                and target.value.id == "self":
            return True
    return False


def cut_in_place(finder, func) -> bool:
    """A conversation the function is handed (a parameter, or a list read from an attribute:
    `messages = agent.messages`) and cuts in place without returning it (`del messages[i]` for the
    first indices up to a cut, `messages.pop()` until it fits): the caller's list is cut, reported
    where it is cut (PRM105), as `window` does for a returned cut. True when one was added."""
    if not finder.cuts(func):
        return False
    handed = {p.arg for p in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)}
    assigned: dict[str, bool] = {}
    returned: set[str] = set()
    cuts: dict[str, ast.stmt] = {}
    todo = list(func.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            for t in getattr(node, "targets", None) or [node.target]:
                if isinstance(t, ast.Name):  # read from an attribute: the list itself, not a copy
                    assigned[t.id] = assigned.get(t.id, True) and isinstance(node.value, ast.Attribute)
        elif isinstance(node, (ast.AugAssign, ast.For, ast.With)) and isinstance(
                getattr(node, "target", None), ast.Name):
            assigned[node.target.id] = False
        elif isinstance(node, ast.Return) and node.value is not None:
            returned |= {n.id for n in subtree(node.value) if isinstance(n, ast.Name)}
        name = _removes_from(node)
        if name is not None:
            cuts.setdefault(name, node)
        todo.extend(child_nodes(node))
    added = False
    for name, stmt in cuts.items():
        if name in returned or not assigned.get(name, name in handed):
            continue
        added = window(finder, stmt, ast.Name(id=name, ctx=ast.Load()), func) or added
    return added


def _removes_from(node) -> str | None:
    """The name of the list a statement removes an item of (`del xs[...]`, `xs.pop(...)`)."""
    if isinstance(node, ast.Delete) and len(node.targets) == 1:
        t = node.targets[0]
        return t.value.id if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) else None
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        f = node.value.func
        if isinstance(f, ast.Attribute) and f.attr == "pop" and isinstance(f.value, ast.Name):
            return f.value.id
    return None




def _conversation(seg: Segment) -> bool:
    """True when a cut list is the conversation by more than growing across calls (any list an
    instance appends to does: memories, events, logs): by its name, a parameter's name or
    annotation, or the messages with roles it holds."""
    from .flow.objects import GROWN
    if not seg.evidence.endswith(GROWN) or not seg.unconfirmed:
        return True  # (a list an instance grows with messages: python/flow/class_facts.holds_conversation)
    named = re.match(r"`([^`]+)`", seg.evidence)  # "`self.history` grows across turns"
    return bool(words(f"{seg.expr} {named.group(1) if named else ''}") & CONVERSATION_WORDS)


def windows_in(value, depth: int = 0) -> list[Segment]:
    """The conversation segments of `value` (a list, or a dict of prompt inputs that holds it under
    a key) that carry a cut (`window`), each cut once; none in text that renders the conversation
    among other text."""
    from .flow.values import Alt, Mapping, Obj, Spread
    if depth > 4:
        return []
    if isinstance(value, Text):
        if any(s.kind is not Kind.HISTORY for s in value.segs):
            return []  # rendered into text (`TEMPLATE.format(history=h[-5:])`): judged where a request carries it
        found = [s for s in value.segs if s.window is not None]
    elif isinstance(value, Seq):
        found = [w for i in value.items for w in windows_in(i.value if isinstance(i, Spread) else i, depth + 1)]
        found += [w for i in value.items if isinstance(i, (Mapping, Obj)) for w in marks_in(i)]  # rendered apart by age
    elif isinstance(value, Alt):
        found = [w for o in value.options for w in windows_in(o, depth + 1)]
    elif isinstance(value, Mapping) and not value.repeated:  # prompt inputs: `{"chat_history": history[2:]}`
        found = [w for v in value.items.values() for w in windows_in(v, depth + 1)]
    else:
        return []
    return list({s.window: s for s in found}.values())
