"""POML's `{{ ... }}` expressions (JavaScript) -> expressions jinja2 parses, and the JavaScript
calls whose value is known to change: facts for `poml.py`, never evaluated.

`translate(js)` -> (jinja2 expression, known) where `known` is (kind, volatility, precision,
evidence) when the expression reads the clock (`new Date()`, `Date.now()`), draws a random
number (`Math.random()`) or makes an id (`crypto.randomUUID()`), else None. The translation writes
JavaScript's operators as jinja2's (`!`, `&&`, `||`, `===`, `!==`, `??`, `?.`), `a ? b : c` as
`(b if a else c)`, a template literal `` `Now ${t}` `` as `("Now " ~ t)`, `x.slice(a, b)` as
`x[a:b]`, `x.length` as `x|length`, `null` / `undefined` as `none`. An expression it still cannot
parse becomes the name in it that says most (one named like a clock, an id or a user's input, else
the first name that is not a JavaScript keyword), else `none`.
"""
from __future__ import annotations

import re

from ..model import Kind, Precision, Volatility

_KEYWORDS = {"new", "typeof", "instanceof", "this", "true", "false", "null", "undefined", "in", "of", "void",
             "Math", "JSON", "Object", "String", "Number", "Array", "Date", "crypto", "loop", "let", "const"}
_NAME = re.compile(r"[A-Za-z_$][\w$]*")
_CLOCK = re.compile(r"\bnew\s+Date\s*\(|\bDate\s*\.\s*now\s*\(")
_DAY = re.compile(r"\.(?:toDateString|toLocaleDateString|getDate|getDay)\s*\(|\.slice\(\s*0\s*,\s*10\s*\)"
                  r"|split\(\s*['\"]T['\"]")
_RANDOM = re.compile(r"\bMath\s*\.\s*random\s*\(")
_ID = re.compile(r"\bcrypto\s*\.\s*randomUUID\s*\(|\buuid(?:v4|4)?\s*\(|\bnanoid\s*\(")


def translate(js: str) -> tuple[str, tuple | None]:
    """(a jinja2 expression for `js`, what it is known to be or None): see the module docstring."""
    known = _known(js)
    converted = _convert(js.strip())
    if converted is not None and _parses(converted):
        return re.sub(r"\(\s+|\s+\)", lambda m: m.group(0).strip(), " ".join(converted.split())), known
    return _best_name(js), known


def _known(js: str) -> tuple | None:
    if _CLOCK.search(js):
        if ".getFullYear" in js:
            prec = Precision.YEAR
        elif ".getMonth" in js:
            prec = Precision.MONTH
        elif _DAY.search(js):
            prec = Precision.DAY
        else:
            prec = Precision.SUB_DAY
        volatility = Volatility.PER_REQUEST if prec is Precision.SUB_DAY else Volatility.PER_DAY
        return Kind.TIMESTAMP, volatility, prec, f"`{js.strip()}`: the clock, read each time the prompt is rendered"
    if _ID.search(js):
        return (Kind.UNIQUE_ID, Volatility.PER_REQUEST, None,
                f"`{js.strip()}`: a new id each time the prompt is rendered")
    if _RANDOM.search(js):
        return (Kind.UNIQUE_ID, Volatility.PER_REQUEST, None,
                f"`{js.strip()}`: a new random number each time the prompt is rendered")
    return None


def _parses(expr: str) -> bool:
    from jinja2 import Environment, TemplateSyntaxError
    try:
        Environment().parse("{{ " + expr + " }}")
        return True
    except TemplateSyntaxError:
        return False


def _best_name(js: str) -> str:
    from .jinja_values import classify_template_name
    names = [n.replace("$", "_") for n in _NAME.findall(_strings_blanked(js)) if n not in _KEYWORDS]
    said = next((n for n in names if classify_template_name(n) is not None), None)
    return said or (names[0] if names else "none")


# ------------------------------------------------------------------ conversion
def _convert(js: str) -> str | None:
    """`js` written as jinja2 writes it (None when a construct cannot be written so)."""
    js = _template_literals(js)
    if js is None:
        return None
    ternary = _split_ternary(js)
    if ternary is not None:
        cond, a, b = (_convert(p.strip()) for p in ternary)
        return None if None in (cond, a, b) else f"(({a}) if ({cond}) else ({b}))"
    return _operators(js)


def _operators(js: str) -> str:
    out, i = [], 0
    for start, end in _string_spans(js):
        out.append(_rewrite(js[i:start]))
        out.append(js[start:end])
        i = end
    out.append(_rewrite(js[i:]))
    return "".join(out)


def _rewrite(code: str) -> str:
    code = code.replace("?.", ".").replace("??", " or ")
    code = re.sub(r"!==?", " != ", code)
    code = re.sub(r"===?", " == ", code)
    code = re.sub(r"!(?!=)", " not ", code)
    code = code.replace("&&", " and ").replace("||", " or ")
    code = re.sub(r"\bnull\b|\bundefined\b", "none", code)
    code = re.sub(r"\.slice\(\s*([^(),]*?)\s*,\s*([^(),]*?)\s*\)", r"[\1:\2]", code)
    code = re.sub(r"\.slice\(\s*([^(),]*?)\s*\)", r"[\1:]", code)
    code = re.sub(r"\.length\b", "|length", code)
    return code.replace("$", "_")


def _template_literals(js: str) -> str | None:
    """Every `` `...${x}...` `` as `("..." ~ (x) ~ "...")`; None for one not closed."""
    if "`" not in js:
        return js
    out, i = [], 0
    while True:
        start = js.find("`", i)
        if start < 0:
            out.append(js[i:])
            return "".join(out)
        out.append(js[i:start])
        pieces, j, text = [], start + 1, []
        while j < len(js) and js[j] != "`":
            if js.startswith("${", j):
                close = _matching(js, j + 1)
                if close is None:
                    return None
                pieces.append(repr("".join(text)))
                inner = _convert(js[j + 2:close])
                if inner is None:
                    return None
                pieces.append(f"({inner})")
                text, j = [], close + 1
                continue
            text.append(js[j + 1] if js[j] == "\\" and j + 1 < len(js) else js[j])
            j += 2 if js[j] == "\\" else 1
        if j >= len(js):
            return None
        pieces.append(repr("".join(text)))
        out.append("(" + " ~ ".join(p for p in pieces if p != "''") + ")" if len(pieces) > 1 else pieces[0])
        i = j + 1


def _matching(js: str, open_at: int) -> int | None:
    """The index of the `}` closing the `{` at `open_at` (strings skipped), or None."""
    depth, i = 0, open_at
    spans = {s: e for s, e in _string_spans(js)}
    while i < len(js):
        if i in spans:
            i = spans[i]
            continue
        depth += {"{": 1, "}": -1}.get(js[i], 0)
        if depth == 0:
            return i
        i += 1
    return None


def _split_ternary(js: str) -> tuple[str, str, str] | None:
    """(condition, then, else) of a top-level `a ? b : c` (right-associative), or None."""
    depth, question, nested = 0, None, 0
    strings = {s: e for s, e in _string_spans(js)}
    i = 0
    while i < len(js):
        if i in strings:
            i = strings[i]
            continue
        ch = js[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0 and ch == "?" and js[i + 1:i + 2] not in ("?", ".") and js[i - 1:i] != "?":
            if question is None:
                question = i
            else:
                nested += 1
        elif depth == 0 and ch == ":" and question is not None:
            if nested == 0:
                return js[:question], js[question + 1:i], js[i + 1:]
            nested -= 1
        i += 1
    return None


def _string_spans(js: str) -> list[tuple[int, int]]:
    """(start, end) of each quoted string ('', "", ``) of `js`, end exclusive."""
    spans, i = [], 0
    while i < len(js):
        if js[i] in "'\"`":
            quote, j = js[i], i + 1
            while j < len(js) and js[j] != quote:
                j += 2 if js[j] == "\\" else 1
            spans.append((i, min(j + 1, len(js))))
            i = j + 1
        else:
            i += 1
    return spans


def _strings_blanked(js: str) -> str:
    out, i = [], 0
    for start, end in _string_spans(js):
        out.append(js[i:start] + " " * (end - start))
        i = end
    out.append(js[i:])
    return "".join(out)
