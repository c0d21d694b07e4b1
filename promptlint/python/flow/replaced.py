"""A template filled by replacing its placeholders: `text.replace(old, new)` and `re.sub(pattern,
repl, text)` (a chain of them: `t = t.replace("{{CURRENT_DATE}}", today)`).

The filled text keeps what the replacement brings: its volatility, kind and precision (a clock
reading, the user's message), entered where the placeholder is when the placeholder is found in
the known text (`"Today is {{CURRENT_DATE}}. ..."`: the date at that place, its value produced
where the replacement was made), and after the text we cannot read when it is not (a template
handed in as a parameter: the placeholder can only be in that text, so what the replacement
brings is there, at the end of it; static replacements add nothing one could judge there).
A placeholder found nowhere (no such text, nothing unknown) leaves the text as it was.

Shapes (`segs`: the text's segments; the result: a `Text`, or an `Alt` of one per variant):

    template.replace("{{CURRENT_TIME}}", now.strftime("%H:%M"))   # the time at the placeholder
    re.sub(r"\\{\\{DATE\\}\\}", today, TEMPLATE)                   # the same with a pattern
    re.sub(PATTERN, replacement_function, template)              # what the function returns
    re.sub(r"\\{(\\w+)\\}", lambda m: fields.get(m.group(1)), tmpl)  # each key's value (keyed_sub)
    for key, value in values.items():                            # each key of a known dict:
        template = template.replace(f"{{{key}}}", str(value))    #   "{key}" -> its value
"""
from __future__ import annotations

import re
from ...model import replace

from ...model import Kind, Segment, Volatility
from .segment_text import const_str, reenter, slice_segment, sub_span
from .values import Alt, Func, Mapping, Text, Value

MAX_MATCHES = 64  # placeholders replaced in one text; past it the rest stay as written
MAX_SCANNED = 200_000  # characters of static text a pattern is run over


def replaced(ev, base: Value, old, new: Value, node, frame, count: int = -1) -> Value:
    """`base.replace(old, new)` (`old`: the placeholder's text) or, with `old` a compiled
    pattern, `re.sub(old, new, base)`. `new`: the replacement's value (a `Func` for a function
    `re.sub` calls per match). Each variant of `base` is filled on its own."""
    if isinstance(base, Alt):
        return replace(base, options=[replaced(ev, o, old, new, node, frame, count) for o in base.options])
    m = frame.module
    span, expr = m.span(node), m.code(node)
    if isinstance(new, Func):
        new = ev.call_function(new, {}, frame.depth + 1, span)  # (its match parameter not known)
    new_segs = ev.text_of(new, frame) if new is not None else []
    segs = ev.text_of(base, frame)
    if old is None:
        return _after_unknown(segs, new_segs, span, expr)
    if isinstance(old, Text):
        return _restored(segs, old.segs, new_segs, span, expr)
    out: list[Segment] = []
    found = 0
    for s in segs:
        if not s.is_static or (count >= 0 and found >= count):
            out.append(s)
            continue
        at = 0
        for a, b, text in _matches(s.text, old, new_segs):
            if count >= 0 and found >= count:
                break
            found += 1
            if a > at:
                out.append(slice_segment(s, at, a))
            out.extend(_entered(s, a, b, text, new_segs, expr))
            at = b
        out.append(s if at == 0 else slice_segment(s, at))
    if found:
        return Text([s for s in out if not s.is_static or s.text])
    return _after_unknown(segs, new_segs, span, expr)


def keyed_sub(ev, base: Value, pattern: re.Pattern, group: int, values: dict, node, frame) -> Value:
    """`re.sub(pattern, lambda m: values.get(m.group(group), m.group(0)), base)` (a template class's
    fill method, flow/fill_methods.py): each match whose group is a key of `values` replaced by
    that key's value, reported at the placeholder; the others left as written. Each variant of
    `base` is filled on its own."""
    if isinstance(base, Alt):
        return replace(base, options=[keyed_sub(ev, o, pattern, group, values, node, frame) for o in base.options])
    expr = frame.module.code(node)
    out: list[Segment] = []
    for s in ev.text_of(base, frame):
        if not s.is_static or len(s.text) > MAX_SCANNED:
            out.append(s)
            continue
        at, found = 0, 0
        for mt in pattern.finditer(s.text):
            key = mt.group(group)
            if key not in values or mt.end() == mt.start():
                continue
            if mt.start() > at:
                out.append(slice_segment(s, at, mt.start()))
            out.extend(_entered(s, mt.start(), mt.end(), None, ev.text_of(values[key], frame), expr))
            at = mt.end()
            found += 1
            if found >= MAX_MATCHES:
                break
        out.append(s if at == 0 else slice_segment(s, at))
    return Text([s for s in out if not s.is_static or s.text])


def filled_by_items(ev, base: Value, node, args, frame, env) -> Value | None:
    """`text.replace(f"{{{key}}}", str(value))` in a loop `for key, value in values.items():` over
    a dict whose keys are known (`values` a `dict(topic=topic)` or `{"topic": topic}` display,
    here or as the caller's argument; one such dict per caller, each caller filling its own
    template: `_known_dicts`): every key's placeholder filled with its value, as the loop's passes
    together do (filling is idempotent: a filled placeholder is no longer there). A key the
    callers' dicts share is filled with what each of them passes (`Alt(per_caller=True)`).
    The text as it is when it holds none of them (filled by an earlier pass); None when the
    placeholder reads no loop key of such a dict, or no text of it is read (a template not read:
    `replaced` puts the values after it)."""
    import ast
    from .frames import Thunk
    if not env or not args:  # (no local bindings: a module-level text, or a function read without a frame)
        return None
    key_th = next((env.get(n.id) for n in ast.walk(args[0]) if isinstance(n, ast.Name)
                   and _items_key(env.get(n.id))), None)
    if key_th is None:
        return None
    dicts = _known_dicts(ev.eval(key_th.node.func.value, frame, key_th.env))
    keys = list(dict.fromkeys(key for d in dicts for key in d.items))
    if not keys or len(keys) > MAX_MATCHES:
        return None
    done = ev.__dict__.setdefault("_filled_by_items", {})
    if id(base) in done:  # the loop's next pass over the text this one filled: nothing left to fill
        return base
    value_name = next((name for name, th in env.items() if isinstance(th, Thunk) and th.kind == "iter"
                       and th.node is key_th.node and th.index == 1), None)
    key_name = next(name for name, th in env.items() if th is key_th)
    # (each variant's own text: the callers' templates differ, and text_of of them all keeps only
    # what they share)
    written = "".join(s.text for v in _variants(base) for s in ev.text_of(v, frame) if s.is_static)
    filled, found = base, False
    for key in keys:
        passed = [d.items[key] for d in dicts if key in d.items]
        item = passed[0] if len(passed) == 1 else Alt(passed, per_caller=True)
        inner = dict(env)
        inner[key_name] = Thunk("value", value=Text([Segment(text=key)]))
        if value_name is not None:
            inner[value_name] = Thunk("value", value=item)
        placeholder = const_str(Text(ev.text_of(ev.eval(args[0], frame, inner), frame)))
        if not placeholder:
            return None
        if placeholder in written:  # (a key whose placeholder the text does not hold changes nothing)
            found = True
            filled = replaced(ev, filled, placeholder, ev.eval(args[1], frame, inner), node, frame)
    if found:
        done[id(filled)] = filled  # (kept: its id stays its own)
        return filled
    # none there: filled by an earlier pass of the loop, or not in the text; a text we cannot read
    # at all is `replaced`'s (the values go after it)
    return base if written.strip() else None


_NAME_MARK = "\x00name\x00"  # stands for the loop's name while the placeholder's form is read
_NAMED = r"([A-Za-z_][A-Za-z0-9_.\-]{0,63})"  # a placeholder's name (`question`, `user.name`)


def filled_by_names(ev, base: Value, node, args, frame, env) -> Value | None:
    """`text.replace("{{" + name + "}}", value)` in a loop over names whose list is not known: a
    dict's items whose keys are not known (`for key, value in values.items():` over a parameter
    many callers pass), the placeholders found in the text itself (`for name in re.findall(
    r"\\{\\{(.*?)\\}\\}", prompt):`), any list of names. Each placeholder of that form in the text
    (the loop's name between the placeholder's fixed ends, `{{question}}`) is one the loop's passes
    fill: it becomes what the replacement reads for that name (`params[name]`, the dict's value),
    entered at the placeholder, as `filled_by_items` does for the keys of a known dict. None when
    the placeholder is not a loop's name between fixed text on both sides (a bare name would be
    any word), the loop's names are known, or the text holds none of that form (`replaced` then
    reads the call). A name whose replacement is fixed text (`""`, markup stripped) is left as written:
    which names the loop has is not known, and fixed text changes no prefix."""
    import ast
    from .frames import Thunk
    if not env or len(args) != 2:
        return None
    key_name = next((n.id for n in ast.walk(args[0]) if isinstance(n, ast.Name)
                     and getattr(env.get(n.id), "kind", None) == "iter"), None)
    if key_name is None:
        return None
    done = ev.__dict__.setdefault("_filled_by_items", {})
    if id(base) in done:  # the loop's next pass over the text this one filled: nothing left to fill
        return base
    if const_str(Text(ev.text_of(ev.eval(args[0], frame, env), frame))) is not None:
        return None  # the loop's names are known (`for k in ("a", "b")`): `replaced` reads each
    inner = dict(env)
    inner[key_name] = Thunk("value", value=Text([Segment(text=_NAME_MARK)]))
    form = const_str(Text(ev.text_of(ev.eval(args[0], frame, inner), frame)))
    if not form or form.count(_NAME_MARK) != 1:
        return None
    start, end = form.split(_NAME_MARK)
    if not start.strip() or not end.strip():
        return None
    pattern = re.compile(re.escape(start) + _NAMED + re.escape(end))
    names = list(dict.fromkeys(m.group(1) for v in _variants(base) for s in ev.text_of(v, frame) if s.is_static
                               for m in pattern.finditer(s.text[:MAX_SCANNED])))
    if not names:
        return None
    filled = base
    for name in names[:MAX_MATCHES]:
        inner[key_name] = Thunk("value", value=Text([Segment(text=name)]))
        new = ev.eval(args[1], frame, inner)
        if all(s.is_static for s in ev.text_of(new, frame)):
            continue  # fixed text for every name (`""`: markup stripped): which names the loop has is not known
        filled = replaced(ev, filled, start + name + end, new, node, frame)
    done[id(filled)] = filled  # (kept: its id stays its own)
    return filled


def _known_dicts(values) -> list[Mapping]:
    """The dicts with known keys `values` is: itself, or each one of the callers' arguments (an
    `Alt` of such dicts, nested Alts flattened: at most MAX_MATCHES); [] when one of them is not
    such a dict (its keys are not known: which placeholders the loop fills is not known)."""
    found = _variants(values)
    if len(found) > MAX_MATCHES or not all(isinstance(d, Mapping) and not d.repeated and d.items for d in found):
        return []
    return found


def _variants(value, depth: int = 0) -> list:
    """The alternatives of a value, nested Alts flattened (a few levels deep)."""
    if isinstance(value, Alt) and depth < 6:
        return [v for o in value.options for v in _variants(o, depth + 1)]
    return [value]


def _items_key(th) -> bool:
    """True for the first name a `for k, v in d.items():` loop binds."""
    import ast
    return th is not None and getattr(th, "kind", None) == "iter" and th.index == 0 and isinstance(th.node, ast.Call) \
        and isinstance(th.node.func, ast.Attribute) and th.node.func.attr == "items" and not th.node.args


def _restored(segs: list[Segment], old: list[Segment], new_segs: list[Segment], span, expr: str) -> Text:
    """A placeholder made at run time (`key = "{{QUERY" + str(uuid4()) + "}}"`, put in the text by
    an earlier replacement to keep it from being filled, then replaced back): the text's segments
    made of the same values as the placeholder's changing parts (the same kind, produced at the
    same place) are that placeholder, and the replacement takes their place; a placeholder none of
    whose values is in the text can only be in a part we cannot read (`_after_unknown`)."""
    keys = {_key(o) for o in old if not o.is_static}
    out, found = [], False
    for s in segs:
        if not s.is_static and _key(s) in keys:
            if not out or out[-1] is not _PLACED:
                out.append(_PLACED)
            found = True
            continue
        out.append(s)
    if not found:  # (a value of the placeholder itself is not what replaces it: see below)
        return _after_unknown(segs, [n for n in new_segs if n.is_static or _key(n) not in keys], span, expr)
    if any(not n.is_static and _key(n) in keys for n in new_segs):
        # the replacement reads as the placeholder itself: no code puts a placeholder back in its
        # own place, so it is a pair whose items were read as one (`for key, original in kept:`);
        # what restores the placeholder's original text is not known, but holds none of its values
        new_segs = [Segment(span=span, kind=Kind.UNKNOWN, volatility=Volatility.STABLE, expr=expr,
                            evidence="the text a placeholder made at run time stood for")]
    filled = []
    for s in out:
        if s is _PLACED:
            filled.extend(n if n.is_static else reenter([n], span, expr, None)[0] for n in new_segs)
        else:
            filled.append(s)
    return Text(filled)


_PLACED = Segment(text="")  # (where a placeholder made at run time was)


def _key(s: Segment) -> tuple:
    """What identifies a value in a text, wherever it was entered: its kind and where it was produced."""
    where = s.origin or s.span
    return s.kind, (where.filename, where.start, where.end) if where is not None else s.expr


def _matches(text: str, old, new_segs: list[Segment]):
    """(start, end, the replacement's static text or None) of each place `old` matches `text`."""
    if isinstance(old, str):
        if not old:
            return []
        out, at = [], text.find(old)
        while at != -1 and len(out) < MAX_MATCHES:
            out.append((at, at + len(old), None))
            at = text.find(old, at + len(old))
        return out
    if len(text) > MAX_SCANNED:
        return []
    static = const_str(Text(new_segs)) if new_segs and all(s.is_static for s in new_segs) else None
    out = []
    for found in old.finditer(text):
        if found.end() == found.start():
            continue
        try:  # (group references of a replacement text: `\1`, `\g<name>`)
            text_of = found.expand(static) if static is not None and "\\" in static else None
        except (re.error, IndexError):
            text_of = None
        out.append((found.start(), found.end(), text_of))
        if len(out) >= MAX_MATCHES:
            break
    return out


def _entered(s: Segment, a: int, b: int, text: str | None, new_segs: list[Segment], expr: str) -> list[Segment]:
    """The replacement's segments put where `s.text[a:b]` (the placeholder) was: static text as
    written there, a changing value reported at the placeholder (its origin: where it was made)."""
    where = sub_span(s, a, b)
    if text is not None:
        return [replace(slice_segment(s, a, b), text=text, raw=None, raw_base=0)]
    out = []
    for n in new_segs:
        if n.is_static:
            out.append(replace(slice_segment(s, a, b), text=n.text, raw=None, raw_base=0))
        elif where is None:
            out.append(n)
        else:
            out.extend(reenter([n], where, expr, None))
    return out


def _after_unknown(segs: list[Segment], new_segs: list[Segment], span, expr: str) -> Text:
    """The placeholder is not in the text we can read: it can only be in a part we cannot (a
    template handed in: a segment of unknown kind, not a value a replacement put there); what
    changes in the replacement enters after the last such part. Text with no such part holds no
    placeholder: it is left as it was."""
    last = max((i for i, s in enumerate(segs) if not s.is_static and s.kind is Kind.UNKNOWN), default=None)
    changing = [n for n in new_segs if not n.is_static and n.volatility is not Volatility.STABLE]
    if last is None or not changing:
        return Text(segs)
    return Text([*segs[:last + 1], *reenter(changing, span, expr, None), *segs[last + 1:]])


def pattern_of(value) -> re.Pattern | None:
    """The compiled pattern of a constant pattern text (`re.sub(r"\\{\\{DATE\\}\\}", ...)`), else
    None (a pattern built at run time, or one that does not compile)."""
    text = const_str(value)
    if text is None:
        return None
    try:
        return re.compile(text)
    except (re.error, RecursionError, OverflowError):
        return None


_FLAGS = {"I": re.I, "IGNORECASE": re.I, "M": re.M, "MULTILINE": re.M, "S": re.S, "DOTALL": re.S, "X": re.X,
          "VERBOSE": re.X, "A": re.A, "ASCII": re.A}


def sub_call(ev, node, qual, args, kwargs, frame, env) -> Value | None:
    """`re.sub(pattern, repl, string, count=0, flags=0)` (a `KNOWN` handler of flow/library.py):
    the string filled as `replaced` fills it; a pattern built at run time leaves where it matches
    unknown. None (not handled: a normal call) for a call written with `*args` / `**kwargs`."""
    names = ["pattern", "repl", "string", "count", "flags"]
    given = dict(zip(names, args))
    given.update(kwargs)
    if any(type(a).__name__ == "Starred" for a in args) or not all(k in given for k in names[:3]):
        return None
    flags = 0
    if "flags" in given:
        for part in _flag_names(given["flags"]):
            flags |= _FLAGS.get(part, 0)
    pattern = None
    text = const_str(ev.eval(given["pattern"], frame, env))
    if text is not None:
        try:
            pattern = re.compile(text, flags)
        except (re.error, RecursionError, OverflowError):
            pattern = None
    count = ev.eval(given["count"], frame, env) if "count" in given else None
    number = const_str(count) if count is not None else None
    limit = int(number) if number is not None and number.isdigit() and int(number) > 0 else -1
    return replaced(ev, ev.eval(given["string"], frame, env), pattern, ev.eval(given["repl"], frame, env), node,
                    frame, limit)


def _flag_names(node) -> list[str]:
    """The names of `re` flags an argument writes (`re.I | re.MULTILINE`, `re.IGNORECASE`)."""
    import ast
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _flag_names(node.left) + _flag_names(node.right)
    if isinstance(node, ast.Attribute):
        return [node.attr]
    if isinstance(node, ast.Name):
        return [node.id]
    return []
