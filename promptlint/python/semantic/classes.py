"""Semantic response caches a module defines (a class), with what its code does with a TTL.

The module is the cache library itself, not an application configuring one: a class whose name says
it is a cache (`SemanticCache`, `InMemorySemanticCache`), that matches entries by similarity (a
`*_threshold` of distance, score or similarity, a `similarity_search*` call, a vector query, or
"semantic" in its name), and
that has a read method (`check`, `lookup`, `get`, ...) and a write method (`store`, `update`, `set`,
...). For each one this module states, from the class's own code (its base classes are not read):

- `ttl_param`: the constructor's TTL parameter (`ttl`, `ttl_seconds`, `default_ttl`, ...), None when it
  takes none; `default_none`: its default is None;
- `mentions_ttl`: any name, attribute, parameter or keyword of the class is a TTL word (`ttl`,
  `expire`, `expiry`, `lifetime`, `max_age`, a redis `ex=` / `px=`): False means the class never sets
  an expiry at all;
- `kept_unread`: the constructor's TTL parameter is only kept (given to `super().__init__`, or set
  on `self` under a name the class never reads again): nothing in this class sends it anywhere;
- `forwards`: the constructor hands `**kwargs` on (to `super().__init__` or a base): a TTL may be
  given to a base class this module does not show;
- `reads_kept_ttl`: a method reads a TTL the instance keeps (`self._ttl`, `self.ttl`,
  `self._resolve_ttl(...)`, `self.expire(key)`) or calls the base's write method (`super().store`);
- `fallback`: a TTL word is given a number when none is set (`ttl or 3600`, `ttl = 600`);
- `own_ttl_writes`: the public write methods with a TTL parameter of their own that they read, as
  (method, parameter): they send the per-call TTL;
- `refreshes`: in the read methods, the calls that reset an entry's expiry on a hit
  (`self.expire(key)`, `client.expire(...)`, `touch(...)`): the TTL restarts at every hit;
- `stores`: in the write methods, the calls made as statements that hand on what the method was given
  (an argument that reads one of its parameters, or a local assigned from one): where an entry is
  written (`self.collection.insert_one({...: prompt})`, `self.add_texts([prompt], [metadata])`);
- `threshold_param`: the constructor's match threshold (`score_threshold`, `similarity_threshold`,
  `distance_threshold`), None when it takes none; `threshold_default_none`: its default is None;
- `threshold_fallback`: the class gives that threshold a number when none is set (`t or 0.8`,
  `t if t is not None else 0.8`, `t = 0.8`); zero counts only for a distance (a distance of 0 accepts
  exact matches only, a score or similarity of 0 accepts anything);
- `threshold_reads`: outside the constructor, the reads of that threshold (the parameter's name or
  the `self` attribute the constructor keeps it in);
- `threshold_tested`: one of those reads is a truth test (`if self.t:`, `... if self.t else ...`,
  `self.t or 0.0`, `not self.t`): the class itself turns the filter off when none is set, rather than
  handing None on to a search whose own default this module does not show.

Facts only; PRM401 judges them. `defined_caches(module)` lists them in source order.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from ..flow.binding_syntax import named_params
from ..module import Module
from ..walk import statements

#: Cheap test of a module's text before its classes are read.
_TEXT = re.compile(r"Cache\b|Cache\(|cache", re.M)
_SIMILAR = re.compile(r"threshold|similarity_search|Vector\w*Query|Semantic")
_READS = frozenset({"check", "acheck", "lookup", "alookup", "get", "aget", "search", "asearch", "find", "query"})
_WRITES = frozenset({"store", "astore", "update", "aupdate", "set", "aset", "add", "aadd", "put", "aput",
                     "save", "asave", "insert", "ainsert"})
_THRESHOLD_WORDS = frozenset({"distance", "score", "similarity"})
_TTL_WORDS = frozenset({"ttl", "ttls", "lifetime", "expire", "expires", "expiry", "expiration", "expired",
                        "pexpire", "expireat"})
_TTL_KEYWORDS = frozenset({"ex", "px", "exat", "pxat", "max_age"})
_REFRESH = frozenset({"expire", "aexpire", "pexpire", "touch", "atouch"})
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class DefinedCache:
    """A semantic response cache class defined in the module (see the module's docstring). `init` is
    its constructor (None when it defines none); `own_ttl_writes` pairs a write method with its TTL
    parameter; `refreshes` are calls in read methods, each with the method it is in."""

    cls: ast.ClassDef
    init: ast.FunctionDef | ast.AsyncFunctionDef | None
    ttl_param: ast.arg | None
    default_none: bool
    mentions_ttl: bool
    kept_unread: bool
    forwards: bool
    reads_kept_ttl: bool
    fallback: bool
    own_ttl_writes: tuple
    refreshes: tuple
    stores: tuple = ()
    threshold_param: ast.arg | None = None
    threshold_default_none: bool = False
    threshold_fallback: bool = False
    threshold_reads: tuple = ()
    threshold_tested: bool = False


def might_hold(source: str) -> bool:
    """The cheap test: the text names a cache and a similarity match (`_TEXT` and `_SIMILAR`,
    searched only past the words every match of theirs holds)."""
    return ("cache" in source or "Cache" in source and _TEXT.search(source) is not None) \
        and ("threshold" in source or "similarity_search" in source or "Semantic" in source
             or "Vector" in source and _SIMILAR.search(source) is not None)


def defined_caches(module: Module) -> list[DefinedCache]:
    """The semantic response cache classes the module defines, in source order."""
    if not might_hold(module.source):
        return []
    out = []
    for node in statements(module.tree):  # (classes are statements; sorted below)
        if isinstance(node, ast.ClassDef) and "cache" in words(node.name):
            found = _read(node)
            if found is not None:
                out.append(found)
    return sorted(out, key=lambda c: c.cls.lineno)


def words(name: str) -> set[str]:
    """The lower-case words of an identifier (`InMemorySemanticCache` -> in, memory, semantic, cache)."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name or "")
    return {w.lower() for w in re.split(r"[^A-Za-z0-9]+", spaced) if w}


def is_ttl_name(name: str | None) -> bool:
    """True for an identifier that names a TTL or an expiry (`ttl`, `_ttl`, `ttl_millis`, `expire`)."""
    return bool(name) and bool(words(name) & _TTL_WORDS)


def _read(cls: ast.ClassDef) -> DefinedCache | None:
    methods = {f.name: f for f in cls.body if isinstance(f, _FUNCS)}
    if not methods.keys() & _READS or not methods.keys() & _WRITES or not _similar(cls):
        return None
    init = methods.get("__init__")
    ttl_param, default_none = _ttl_param(init)
    threshold, threshold_none = _param(init, _is_threshold_name)
    nodes = list(ast.walk(cls))
    reads = _threshold_reads(cls, init, threshold.arg) if threshold is not None else ()
    return DefinedCache(
        cls=cls, init=init, ttl_param=ttl_param, default_none=default_none,
        mentions_ttl=any(_ttl_mention(n) for n in nodes),
        kept_unread=ttl_param is not None and _kept_unread(init, ttl_param.arg, nodes),
        forwards=init is not None and init.args.kwarg is not None and any(
            isinstance(k, ast.keyword) and k.arg is None for k in ast.walk(init)),
        reads_kept_ttl=any(_reads_kept(n) for n in nodes),
        fallback=any(_fallback(n) for n in nodes),
        own_ttl_writes=tuple((f, a) for name, f in methods.items() if name in _WRITES
                             for a in named_params(f) if is_ttl_name(a.arg) and _read_in(f, a.arg)),
        refreshes=tuple((f, c) for name, f in methods.items() if name in _READS
                        for c in ast.walk(f) if _refresh(c)),
        stores=tuple((f, c) for name, f in methods.items() if name in _WRITES for c in _stores(f)),
        threshold_param=threshold, threshold_default_none=threshold_none,
        threshold_fallback=threshold is not None and any(
            _threshold_fallback(n, threshold.arg, reads) for n in nodes),
        threshold_reads=reads,
        threshold_tested=_truth_tested(cls, reads),
    )


def _similar(cls: ast.ClassDef) -> bool:
    """True when the class matches by similarity: a threshold of distance, score or similarity named
    in it (a parameter, an attribute, a keyword), a `similarity_search*` call or a vector query; or its
    name says so (`SemanticCache`)."""
    if "semantic" in words(cls.name):
        return True
    for n in ast.walk(cls):
        name = n.arg if isinstance(n, (ast.arg, ast.keyword)) else n.attr if isinstance(n, ast.Attribute) \
            else n.id if isinstance(n, ast.Name) else None
        if not name:
            continue
        found = words(name)
        if "threshold" in found and found & _THRESHOLD_WORDS or name.startswith("similarity_search") \
                or re.fullmatch(r"Vector\w*Query", name):
            return True
    return False


def _ttl_param(init) -> tuple[ast.arg | None, bool]:
    """The constructor's TTL parameter and whether it defaults to None."""
    return _param(init, is_ttl_name)


def _is_threshold_name(name: str) -> bool:
    found = words(name)
    return "threshold" in found and bool(found & _THRESHOLD_WORDS)


def _param(init, named) -> tuple[ast.arg | None, bool]:
    """The constructor's first parameter whose name `named` accepts, and whether it defaults to None."""
    if init is None:
        return None, False
    a = init.args
    positional = [*a.posonlyargs, *a.args]
    defaults = dict(zip([p.arg for p in positional[len(positional) - len(a.defaults):]], a.defaults))
    defaults.update({p.arg: d for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None})
    for p in named_params(init):
        if named(p.arg):
            d = defaults.get(p.arg)
            return p, isinstance(d, ast.Constant) and d.value is None
    return None, False


def _kept_unread(init, name: str, nodes: list) -> bool:
    """True when every read of `name` in the constructor is an argument of `super().__init__(...)` or
    the value of `self.X = name` with `self.X` never read in the class (`nodes`)."""
    parents = {id(c): p for p in ast.walk(init) for c in ast.iter_child_nodes(p)}
    kept: set[str] = set()
    for n in ast.walk(init):
        if not (isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)):
            continue
        up = parents.get(id(n))
        if isinstance(up, ast.keyword):
            up = parents.get(id(up))
        if isinstance(up, ast.Call) and _super_init(up):
            continue
        if isinstance(up, ast.Assign) and up.value is n and all(_self_attr(t) for t in up.targets):
            kept.update(t.attr for t in up.targets)
            continue
        return False
    return not any(isinstance(x, ast.Attribute) and isinstance(x.ctx, ast.Load) and _self_attr(x) and x.attr in kept
                   for x in nodes)


def _super_init(call: ast.Call) -> bool:
    f = call.func
    return isinstance(f, ast.Attribute) and f.attr == "__init__" and (
        isinstance(f.value, ast.Call) and isinstance(f.value.func, ast.Name) and f.value.func.id == "super"
        or isinstance(f.value, ast.Name))  # (`Base.__init__(self, ttl=ttl)`)


def _self_attr(n) -> bool:
    return isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self"


def _ttl_mention(n) -> bool:
    if isinstance(n, ast.keyword):
        return n.arg in _TTL_KEYWORDS or is_ttl_name(n.arg)
    if isinstance(n, ast.Name):
        return is_ttl_name(n.id)
    if isinstance(n, ast.Attribute):
        return is_ttl_name(n.attr)
    if isinstance(n, ast.arg):
        return is_ttl_name(n.arg)
    return isinstance(n, _FUNCS) and is_ttl_name(n.name)


def _reads_kept(n) -> bool:
    """`self.<ttl>` read, `self.<ttl method>(...)` called, or `super().<write>(...)` called."""
    if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load) and isinstance(n.value, ast.Name) \
            and n.value.id == "self" and is_ttl_name(n.attr):
        return True
    return isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _WRITES \
        and isinstance(n.func.value, ast.Call) and isinstance(n.func.value.func, ast.Name) \
        and n.func.value.func.id == "super"


def _number(n) -> bool:
    return isinstance(n, ast.Constant) and isinstance(n.value, (int, float)) and not isinstance(n.value, bool) \
        and n.value > 0


def _fallback(n) -> bool:
    """A TTL given a number when none is set: `ttl or 3600`, `ttl = 600`, `ttl if ttl else 60`."""
    if isinstance(n, ast.BoolOp) and isinstance(n.op, ast.Or):
        return any(_ttl_expr(v) for v in n.values) and any(_number(v) for v in n.values)
    if isinstance(n, ast.IfExp):
        return _ttl_expr(n.test) and (_number(n.body) or _number(n.orelse))
    if isinstance(n, (ast.Assign, ast.AnnAssign)) and n.value is not None and _number(n.value):
        targets = n.targets if isinstance(n, ast.Assign) else [n.target]
        return any(_ttl_expr(t) for t in targets)
    return False


def _ttl_expr(n) -> bool:
    return any(isinstance(x, ast.Name) and is_ttl_name(x.id) or isinstance(x, ast.Attribute) and is_ttl_name(x.attr)
               for x in ast.walk(n))


def _read_in(func, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) for n in ast.walk(func))


def _refresh(n) -> bool:
    """A call that resets an entry's expiry: `self.expire(key)`, `client.pexpire(...)`, `touch(...)`."""
    if not isinstance(n, ast.Call):
        return False
    name = n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id if isinstance(n.func, ast.Name) else ""
    return name.lstrip("_") in _REFRESH or "refresh" in words(name) and bool(words(name) & _TTL_WORDS)


def _stores(func) -> list[ast.Call]:
    """The calls made as statements in `func` whose arguments read one of its parameters (not `self`)
    or a local assigned from one, in source order."""
    given = {p.arg for p in named_params(func)} - {"self", "cls"}
    calls = []
    for stmt in statements(func):
        if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
            value = stmt.iter if isinstance(stmt, (ast.For, ast.AsyncFor)) else stmt.value
            if value is not None and _reads_any(value, given):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                given |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        call = stmt.value.value if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Await) \
            else stmt.value if isinstance(stmt, ast.Expr) else None
        if isinstance(call, ast.Call) and any(_reads_any(a, given) for a in [*call.args, *call.keywords]):
            calls.append(call)
    return calls


def _reads_any(node, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node))


def _threshold_reads(cls: ast.ClassDef, init, name: str) -> tuple:
    """Reads of the constructor's threshold `name` outside the constructor: `self.X` where the
    constructor does `self.X = name`."""
    kept = {t.attr for n in ast.walk(init) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Name)
            and n.value.id == name for t in n.targets if _self_attr(t)}
    reads = [n for f in cls.body if isinstance(f, _FUNCS) and f is not init for n in ast.walk(f)
             if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load) and _self_attr(n) and n.attr in kept]
    return tuple(sorted(reads, key=lambda n: (n.lineno, n.col_offset)))


def _truth_tested(cls: ast.ClassDef, reads: tuple) -> bool:
    """True when one of `reads` is the test of an `if` / conditional expression, an operand of
    `or` / `and`, or negated with `not`."""
    ids = {id(r) for r in reads}
    for n in ast.walk(cls):
        tests = [n.test] if isinstance(n, (ast.If, ast.IfExp, ast.While)) else n.values \
            if isinstance(n, ast.BoolOp) else [n.operand] if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not) \
            else []
        if any(id(t) in ids for t in tests):
            return True
    return False


def _threshold_fallback(n, name: str, reads: tuple) -> bool:
    """The threshold given a number when none is set (zero only for a distance): `t or 0.8`,
    `t if t is not None else 0.8`, `t = 0.8`, `self.t = 0.8`."""
    reads_ids = {id(r) for r in reads}

    def is_threshold(x) -> bool:
        return isinstance(x, ast.Name) and x.id == name or id(x) in reads_ids \
            or isinstance(x, ast.Attribute) and _self_attr(x) and any(x.attr == r.attr for r in reads)

    def number(x) -> bool:
        return isinstance(x, ast.Constant) and isinstance(x.value, (int, float)) \
            and not isinstance(x.value, bool) and (x.value > 0 or "distance" in words(name))

    if isinstance(n, ast.BoolOp) and isinstance(n.op, ast.Or):
        return any(is_threshold(v) for v in n.values) and any(number(v) for v in n.values)
    if isinstance(n, ast.IfExp):
        return any(is_threshold(x) for x in ast.walk(n.test)) and (number(n.body) or number(n.orelse))
    if isinstance(n, (ast.Assign, ast.AnnAssign)) and n.value is not None and number(n.value):
        targets = n.targets if isinstance(n, ast.Assign) else [n.target]
        return any(is_threshold(t) for t in targets)
    return False
