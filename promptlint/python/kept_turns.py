"""A conversation kept on an instance and cut there (PRM105): a method that drops the oldest items
of a list attribute once it passes a limit (`while len(self.runs) > self.max_runs:
self.runs.pop(0)`, `if len(self.history) > k: del self.history[0]`) or keeps the newest that fit
(`n = len(self.runs)`, `n -= 1` in a loop until they fit a budget, then `self.runs[-n:]`), where the list is the
conversation by its name (`self.messages`, `self.chat_history`) or by what the class does with
its items: a method of the class, or of a subclass in the same folder, turns each item into a
user message and an assistant message (`for run in self.runs[-n:]:
stack.add_user_message(run.input); stack.add_assistant_message(run.output)`). Reported where it
is cut, as a history candidate with no send call linked (info).
"""
from __future__ import annotations

import ast
from pathlib import Path

from .module import self_attr
from ..model import Kind, Part, Segment, Volatility
from ..source import SourceError, read_python
from .prompt_names import words
from .flow.cuts import front_slice, runs_until_it_fits
from .history_cuts import CONVERSATION_WORDS
from .stored_cuts import held_conversation
from .walk import subtree

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_ROLES = ("user", "assistant")
#: Folder files read for subclasses of a class whose list is cut (a bound on the work).
MAX_SIBLINGS = 40


def cut_kept(finder, func) -> bool:
    """Add a history candidate for each list attribute `func` (a method) cuts from its oldest end
    under a test of the list's length, when that list is the conversation. True when one was added."""
    at = finder.stack.index(func) if func in finder.stack else -1
    cls = finder.stack[at - 1] if at > 0 and isinstance(finder.stack[at - 1], ast.ClassDef) else None
    if cls is None:
        return False
    a, b = finder.m.offsets(func)
    if finder.m.source.find("len(self.", a, b) == -1 and finder.m.source.find("while", a, b) == -1:
        return False
    found = _oldest_cuts(func) if finder.cuts(func) else []
    if finder.m.source.find("-=", a, b) != -1:
        found += _fitted_counts(finder, cls, func)
    added = False
    for attr, stmt in found:
        evidence = _evidence(finder, cls, attr)
        if evidence is None or _cut_read(finder, func, attr):
            continue
        span = finder.m.span(stmt)
        seg = Segment(kind=Kind.HISTORY, volatility=Volatility.UNKNOWN, expr=f"self.{attr}", span=span,
                      evidence=evidence, window=span)
        finder.b.add(stmt, "python-constant", None, None, None, [Part("history", [seg], span=span)])
        added = True
    return added


def _cut_read(finder, func, attr: str) -> bool:
    """True when the evaluator already read a cut of `self.<attr>` in `func` (a layout of the
    returned window, `return head + self.<attr>[-n:]`): one root cause, reported there."""
    for lay in finder.b.layouts:
        for part in lay.parts:
            for s in part.segments:
                w = s.window
                if w is not None and s.expr.startswith(f"self.{attr}") and w.filename == finder.m.filename \
                        and func.lineno <= w.start.row <= func.end_lineno:
                    return True
    return False


def _oldest_cuts(func) -> list[tuple[str, ast.stmt]]:
    """(attribute, statement) for each `self.X.pop(0)` / `del self.X[0]` / `del self.X[:k]` /
    `self.X = self.X[k:]` in a `while` or `if` whose test reads `len(self.X)`, or in a `while`
    loop that runs until a size of `self.X` fits (`while count_tokens(self.X) > limit:`): the
    oldest items dropped once it is too long."""
    out: dict[str, ast.stmt] = {}
    for node in subtree(func):
        if not isinstance(node, (ast.While, ast.If)):
            continue
        sized = runs_until_it_fits(node)  # any size of it: `count(self.X)`, `self.tokens(self.X)`
        tested = {n.args[0].attr for n in subtree(node.test) if isinstance(n, ast.Call)
                  and (sized or isinstance(n.func, ast.Name) and n.func.id == "len") and len(n.args) == 1
                  and self_attr(n.args[0]) is not None}
        for stmt in node.body:
            attr = _drops_oldest(stmt)
            if attr is not None and attr in tested:
                out.setdefault(attr, stmt)
    return list(out.items())


def _fitted_counts(finder, cls, func) -> list[tuple[str, ast.stmt]]:
    """(attribute, statement) for a count of the newest items that fit: `n = len(self.X)`, then
    `n -= 1` in a `while` loop (until the rendering fits a budget), and the newest `n` items of
    `self.X` taken (`self.X[-n:]` in `func`, or a method of the class family called with `n` that
    slices `self.X[-last_n:]` by that parameter). The statement is the decrement."""
    counts = {t.id: a for n in subtree(func) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call)
              and isinstance(n.value.func, ast.Name) and n.value.func.id == "len" and len(n.value.args) == 1
              and (a := self_attr(n.value.args[0])) is not None
              for t in n.targets if isinstance(t, ast.Name)}
    if not counts:
        return []
    out = []
    for loop in subtree(func):
        if not isinstance(loop, ast.While):
            continue
        for dec in subtree(loop):
            if not (isinstance(dec, ast.AugAssign) and isinstance(dec.op, ast.Sub)
                    and isinstance(dec.target, ast.Name) and dec.target.id in counts):
                continue
            name, attr = dec.target.id, counts[dec.target.id]
            if _newest_taken(finder, cls, func, name, attr):
                out.append((attr, dec))
    return out


def _newest_taken(finder, cls, func, name: str, attr: str) -> bool:
    """True when `func` takes the newest `name` items of `self.<attr>`, itself or through a method
    of the class family that it calls with `name`."""
    if any(_slices_newest(n, attr, name) for n in subtree(func)):
        return True
    called = {(n.func.attr, i) for n in subtree(func) if isinstance(n, ast.Call) and self_attr(n.func) is not None
              for i, a in enumerate(n.args) if isinstance(a, ast.Name) and a.id == name}
    if not called:
        return False
    for _, klass in _family(finder, cls):
        for item in klass.body:
            if not isinstance(item, _FUNCS):
                continue
            params = [a.arg for a in item.args.args[1:]]
            for method, i in called:
                if item.name == method and i < len(params) \
                        and any(_slices_newest(n, attr, params[i]) for n in subtree(item)):
                    return True
    return False


def _slices_newest(node, attr: str, name: str) -> bool:
    """`self.<attr>[-name:]`."""
    if not (isinstance(node, ast.Subscript) and self_attr(node.value) == attr and isinstance(node.slice, ast.Slice)):
        return False
    low = node.slice.lower
    return (isinstance(low, ast.UnaryOp) and isinstance(low.op, ast.USub) and isinstance(low.operand, ast.Name)
            and low.operand.id == name and node.slice.upper is None)


def _drops_oldest(stmt) -> str | None:
    """The attribute a statement drops the first item(s) of: `self.X.pop(0)`, `del self.X[0]`,
    `del self.X[:k]`, `self.X = self.X[k:]`."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and self_attr(stmt.targets[0]) is not None:
        cut = stmt.value
        if front_slice(cut) and self_attr(cut.value) == self_attr(stmt.targets[0]):
            return self_attr(cut.value)
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        call = stmt.value
        if isinstance(call.func, ast.Attribute) and call.func.attr == "pop" and len(call.args) == 1 \
                and isinstance(call.args[0], ast.Constant) and call.args[0].value == 0:
            return self_attr(call.func.value)
    if isinstance(stmt, ast.Delete) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Subscript):
        target = stmt.targets[0]
        sl = target.slice
        first = isinstance(sl, ast.Constant) and sl.value == 0
        head = isinstance(sl, ast.Slice) and sl.lower is None and sl.upper is not None and sl.step is None
        if first or head:
            return self_attr(target.value)
    return None


def _evidence(finder, cls: ast.ClassDef, attr: str) -> str | None:
    """Why `self.<attr>` is the conversation, or None: a generic name (`history`) only when what the
    module adds to it is a message (`stored_cuts.held_conversation`: not a log of records)."""
    if words(attr) & CONVERSATION_WORDS and held_conversation(finder.m, f"self.{attr}"):
        return f"`self.{attr}`, named as the conversation"
    for module, klass in _family(finder, cls):
        for item in klass.body:
            if isinstance(item, _FUNCS) and _renders_turns(item, attr):
                return (f"`self.{attr}`: each item becomes a user and an assistant message in "
                        f"`{klass.name}.{item.name}` ({Path(module.filename).name}:{item.lineno})")
    return None


def _family(finder, cls: ast.ClassDef):
    """(module, class) for `cls` and the classes of its module and of the modules in its folder
    that name it as a base."""
    yield finder.m, cls
    modules = [finder.m]
    here = Path(finder.m.path)
    for path in sorted(here.parent.glob("*.py"))[:MAX_SIBLINGS]:
        if path == here:
            continue
        try:
            text = read_python(path)  # recorded: a changed subclass changes the finding
        except (OSError, SourceError):
            continue
        if cls.name not in text:
            continue
        try:
            modules.append(finder.ev.project.load(path))
        except Exception:  # a file that does not parse is no subclass
            continue
    for module in modules:
        for klass in module.classes.values():
            if klass is not cls and any(_base_name(b) == cls.name for b in klass.bases):
                yield module, klass


def _base_name(node) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _renders_turns(func, attr: str) -> bool:
    """True when a loop of `func` walks `self.<attr>` (or a name assigned from an expression that
    reads it: `runs = self.runs[-n:] if n else self.runs`) and its body builds both a user and an
    assistant message."""
    derived = {t.id for n in subtree(func) if isinstance(n, ast.Assign) and _reads(n.value, attr)
               for t in n.targets if isinstance(t, ast.Name)}
    for loop in subtree(func):
        if not isinstance(loop, (ast.For, ast.AsyncFor)):
            continue
        it = loop.iter
        if not (_reads(it, attr) or isinstance(it, ast.Name) and it.id in derived):
            continue
        roles = set()
        for stmt in loop.body:
            roles |= _roles_built(stmt)
        if roles >= set(_ROLES):
            return True
    return False


def _reads(node, attr: str) -> bool:
    return any(self_attr(n) == attr for n in subtree(node))


def _roles_built(node) -> set[str]:
    """The roles of the messages a statement builds: `{"role": "user", ...}`, `Message(role="user")`,
    `Message("assistant", ...)`, `stack.add_user_message(...)`."""
    found = set()
    for n in subtree(node):
        if isinstance(n, ast.Dict):
            for k, v in zip(n.keys, n.values):
                if isinstance(k, ast.Constant) and k.value == "role" and isinstance(v, ast.Constant) \
                        and v.value in _ROLES:
                    found.add(v.value)
        elif isinstance(n, ast.Call):
            for kw in n.keywords:
                if kw.arg == "role" and isinstance(kw.value, ast.Constant) and kw.value.value in _ROLES:
                    found.add(kw.value.value)
            if n.args and isinstance(n.args[0], ast.Constant) and n.args[0].value in _ROLES:
                found.add(n.args[0].value)
            name = n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", "")
            named = words(name)
            if "message" in named:
                found |= named & set(_ROLES)
    return found
