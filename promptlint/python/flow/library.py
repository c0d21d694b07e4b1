"""Known functions of the standard library and common packages, one table keyed by qualified name.

`KNOWN[qualname](evaluator, node, qualname, args, kwargs, frame, env) -> Value` evaluates a call
of that function; `known_prefix(qualname)` covers families (`platform.*`) (None from a handler: not handled,
evaluate as a normal call; the builtins by plain name are in builtin_calls.py). The facts about clocks, ids and ordering are in `classify` (docs/policies.md, Policy 1).
"""
from __future__ import annotations

import ast
import json
import os
from ...model import replace
from pathlib import Path

from ...model import Anchor, Kind, Precision, Segment, Span, Volatility
from ... import classify, source
from ..walk_loops import sorts_folders, top_down, walk_loop
from .builtin_calls import fromkeys
from .configured import is_configured
from .hashing import seed_free_set
from .json_keys import string_keyed
from .replaced import sub_call
from .serial_orders import (deterministic_dict, dict_keys_only, fixed_keys, keyless_parameter, named_keyless, stored_read,
                            order_of, per_call, value_drawn, value_order, written)
from .seeded_draws import process_seeded
from .segment_text import const_str
from .values import Alt, Config, Mapping, Obj, PathV, Seq, TemplateText, Text, Value, dynamic, most_volatile, vol_rank

_SERIALIZERS = ("json.dumps", "json.dump", "simplejson.dumps", "simplejson.dump", "orjson.dumps", "yaml.dump",
                "yaml.safe_dump", "yaml.dump_all", "yaml.safe_dump_all")
_LOADERS = ("json.loads", "json.load", "tomllib.loads", "tomllib.load", "tomli.loads", "tomli.load", "toml.loads",
            "toml.load", "yaml.safe_load", "yaml.load", "yaml.full_load")


def _timestamp(ev, node, qual, args, kwargs, frame, env) -> Value:
    m = frame.module
    return dynamic(m.span(node), m.code(node), Kind.TIMESTAMP, Volatility.PER_REQUEST,
                   f"call to `{m.code(node.func)}()`", precision=classify.TIMESTAMP_CALLS[qual])


def _strftime(ev, node, qual, args, kwargs, frame, env) -> Value:
    m = frame.module
    span = m.span(node)
    fmt = const_str(ev.eval(args[0], frame, env)) if args else None
    prec = classify.strftime_precision(fmt) if fmt is not None else Precision.SUB_DAY
    if prec is None:
        return dynamic(span, m.code(node), Kind.UNKNOWN, Volatility.STABLE, "a time-zone name, not a time")
    return dynamic(span, m.code(node), Kind.TIMESTAMP, Volatility.PER_REQUEST, f"call to `{m.code(node)}`", precision=prec)


def _from_timestamp(ev, node, qual, args, kwargs, frame, env) -> Value:
    """`datetime.fromtimestamp(ts)` (`utcfromtimestamp`, `date.fromtimestamp`): a date-time made
    of a number of seconds. Of a clock reading (`ts = time.time()`) it is that reading (a `date` to
    the day); of anything else, what the library call gives (a method of the class)."""
    m = frame.module
    first = ev.eval(args[0], frame, env) if args else None
    src = next((s for s in first.segs if s.kind is Kind.TIMESTAMP), None) if isinstance(first, Text) else None
    if src is None:
        return ev.method(ev.eval(node.func.value, frame, env), node.func.attr, node, args, kwargs, frame, env) \
            if isinstance(node.func, ast.Attribute) else ev.opaque_call(node, [first] if first else [], frame)
    prec = Precision.DAY if qual.startswith("datetime.date.") else src.precision
    return Text([replace(src, span=m.span(node), expr=m.code(node), precision=prec, origin=None, anchor=None,
                         evidence=f"`{m.code(node)}`, of a clock reading")])


def _unique_id(ev, node, qual, args, kwargs, frame, env) -> Value:
    m = frame.module
    if isinstance(node, ast.Call) and m.qualified_name(node.func) == qual and qual.split(".")[-2] == "random" \
            and process_seeded(frame, node):
        return repeated_draw(m, node, "the process-wide generator seeded before it in this function")
    picked = classify.PICKED_AT_RANDOM if qual.rsplit(".", 1)[-1] in ("choice", "choices", "sample") else ""
    return dynamic(m.span(node), m.code(node), Kind.UNIQUE_ID, Volatility.PER_REQUEST,
                   f"call to `{m.code(node.func)}()`{picked}")


def _unordered(ev, node, qual, args, kwargs, frame, env) -> Value:
    """A call whose results come in no fixed order. `as_completed(tasks)` keeps the tasks
    (their results are the elements) with the order marked unstable."""
    m = frame.module
    seg = Segment(span=m.span(node), kind=Kind.UNORDERED_ITERATION, volatility=Volatility.UNKNOWN,
                  expr=m.code(node), evidence=classify.UNORDERED_CALLS.get(qual, "unordered source"))
    if qual.endswith("as_completed") and args:
        tasks = ev.eval(args[0], frame, env)
        if isinstance(tasks, Seq) and tasks.items:
            return Seq(tasks.items, m.span(node), repeated=True, node=node, unordered=seg)
    if qual == "os.walk":  # sorted on its own: its tuples compare by their folder, unique in a walk
        loop = walk_loop(frame.func or m.tree, node) if isinstance(node, ast.Call) and top_down(node) else None
        if loop is not None and sorts_folders(loop):  # `dirs.sort()` in the loop: the walk goes in a fixed order
            return Seq([_walked(m, node)], m.span(node), repeated=True, node=node, ordered=True)
        seg = replace(seg, anchor=Anchor(seg.span, "iterable", (("source", seg.evidence), ("items", "orderable")), m.digest))
        return Seq([_walked(m, node)], m.span(node), repeated=True, node=node, unordered=seg)
    return Text([seg])


def _walked(m, node) -> Seq:
    """One element of `os.walk(...)`: the tuple `(folder, folder names, file names)`. The folder is
    a path (stable); each list of names comes in file-system order (`classify.WALK_LISTS`), also
    when the walk itself is sorted, so iterating one is an unordered iteration of its own."""
    span, walk = m.span(node), m.code(node)
    names = [Text([Segment(span=span, kind=Kind.UNORDERED_ITERATION, volatility=Volatility.UNKNOWN,
                           expr=f"{what} of `{walk}`", evidence=classify.WALK_LISTS)]) for what in ("the folders", "the files")]
    return Seq([dynamic(span, walk, Kind.UNKNOWN, Volatility.STABLE, f"a folder walked by `{walk}`"), *names],
               span, is_tuple=True)


def _unordered_set(ev, node, qual, args, kwargs, frame, env) -> Value:
    """`set(...)` / `frozenset(...)`: unordered, unless its elements hash without the hash seed
    (`hashing.seed_free_set`: `set(range(n))`), which is then read as the list it is built from."""
    m = frame.module
    if seed_free_set(node):
        return ev.eval(args[0], frame, env) if args else Seq([], m.span(node))
    name = qual.rsplit(".", 1)[-1]
    drawn = per_call(ev, args[0], frame, env) if args else None
    if drawn is not None and drawn.kind is Kind.USER_INPUT:
        # the user's input, or data fetched with it (`set(c.name for c in db.run(query).columns)`): new
        # content on every request, but the same request again (a replay, a retry in another worker)
        # gets the same elements in another order: its elements, in the set's order (fixed at the call)
        seg = Segment(span=m.span(node), kind=Kind.UNORDERED_ITERATION, volatility=Volatility.PER_PROCESS,
                      expr=m.code(node), evidence=f"`{name}(...)`: iteration order depends on the hash seed")
        seg = replace(seg, anchor=Anchor(seg.span, "iterable", (("source", seg.evidence),), m.digest))
        element = Text([replace(drawn, origin=drawn.origin or drawn.span, anchor=None, fix=None)])
        return Seq([element], m.span(node), repeated=True, node=node, unordered=seg)
    if drawn is not None:  # a set of what changes on every call (`set(r["tag"] for r in random.sample(rs, 5))`)
        return Text([replace(drawn, span=m.span(node), expr=m.code(node), origin=drawn.origin or drawn.span,
                             anchor=None, fix=None)])
    return dynamic(m.span(node), m.code(node), Kind.UNORDERED_ITERATION, Volatility.PER_PROCESS,
                   f"`{name}(...)`: iteration order depends on the hash seed")


def alias_called(func) -> str | None:
    """The builtin a subscripted generic alias calls (`set[str]()` -> "set", `frozenset[int]`), so
    that it is known as the plain call is; None for any other callee."""
    if isinstance(func, ast.Subscript) and isinstance(func.value, ast.Name) and func.value.id in ("set", "frozenset"):
        return func.value.id
    return None


def _user_input(ev, node, qual, args, kwargs, frame, env) -> Value:
    m = frame.module
    return dynamic(m.span(node), m.code(node), Kind.USER_INPUT, Volatility.PER_REQUEST, "read from standard input")


def _passthrough(ev, node, qual, args, kwargs, frame, env) -> Value | None:
    """`asyncio.wait_for(coro, ...)`, `asyncio.run(coro)`: the value of the awaited argument."""
    if not args:
        return dynamic(frame.module.span(node), frame.module.code(node))
    return ev.eval(args[0], frame, env)


def _cast(ev, node, qual, args, kwargs, frame, env) -> Value | None:
    """`typing.cast(T, value)`: the value itself (a cast only tells the type checker)."""
    if len(args) < 2:
        return None
    return ev.eval(args[1], frame, env)


def _stable(ev, node, qual, args, kwargs, frame, env) -> Value:
    m = frame.module
    return dynamic(m.span(node), m.code(node), Kind.UNKNOWN, Volatility.STABLE, "describes the host or configuration")


#: The names of the standard library for parts of a path, by qualified name.
_PATH_NAMES = {"os.pardir": "..", "os.curdir": ".", "os.path.pardir": "..", "os.path.curdir": "."}


def _os_path(ev, node, qual, args, kwargs, frame, env) -> Value:
    """`os.path.join` / `dirname` / `abspath` / `realpath` of paths known statically (`os.pardir`
    is `..`, resolved by `abspath`)."""
    names = [_PATH_NAMES.get(frame.module.qualified_name(a) or "") for a in args]
    vals = [Text([Segment(text=n)]) if n is not None else ev.eval(a, frame, env) for a, n in zip(args, names)]
    if qual == "os.path.join":
        if vals and isinstance(vals[0], PathV):
            return ev.path_join(vals[0], vals[1:], frame)
        return PathV(None)
    if vals and isinstance(vals[0], PathV) and vals[0].path is not None:
        if qual == "os.path.dirname":
            return PathV(vals[0].path.parent, vals[0].volatile)
        if qual in ("os.path.abspath", "os.path.realpath"):  # `..` resolved as the call does
            return PathV(Path(os.path.normpath(vals[0].path)), vals[0].volatile)
        return PathV(vals[0].path, vals[0].volatile)
    return PathV(None)


def _dedent(ev, node, qual, args, kwargs, frame, env) -> Value:
    import textwrap
    from dataclasses import replace
    m = frame.module
    if not args:
        return dynamic(m.span(node), m.code(node))
    segs = ev.text_of(ev.eval(args[0], frame, env), frame)
    if segs and all(s.is_static for s in segs):
        return Text([replace(segs[0], text=textwrap.dedent("".join(s.text for s in segs)), raw=None, raw_base=0)])
    return Text(segs)


def _path(ev, node, qual, args, kwargs, frame, env) -> Value:
    return ev.path_ctor(args, frame, env)


def _package_files(ev, node, qual, args, kwargs, frame, env) -> Value:
    return ev.package_folder(args, kwargs, frame, env)


def _config_load(ev, node, qual, args, kwargs, frame, env) -> Value:
    m = frame.module
    src_node = args[0] if args else next(iter(kwargs.values()), None)
    if src_node is None:
        return dynamic(m.span(node), m.code(node))
    src = ev.eval(src_node, frame, env)
    if isinstance(src, Obj) and src.qualname == "file" and src.args and isinstance(src.args[0], PathV):
        src = ev.read_file(src.args[0].path, node, frame)
    if isinstance(src, Text) and len(src.segs) == 1 and src.segs[0].is_static and src.segs[0].span is not None:
        seg = src.segs[0]
        path = Path(seg.span.filename)
        if not path.is_absolute():
            path = Path.cwd() / path
        if path.suffix in (".toml", ".yaml", ".yml", ".json") and source.is_file(path):
            data = parse_config(path, seg.text)
            if data is not None:
                return Config(path, seg.text, [], data)
    segs = ev.text_of(src, frame) if isinstance(src, (Text, Alt)) else []
    changes = most_volatile(segs)
    if changes is not None and vol_rank(changes.volatility) > vol_rank(Volatility.UNKNOWN):
        # data parsed from text known to change (a model's answer, a request's body): not a
        # configuration, it changes as that text does
        return Text([replace(changes, span=m.span(node), expr=m.code(node), origin=changes.origin or changes.span,
                             anchor=None, fix=None, ordered=True,
                             kind=changes.kind if changes.kind in (Kind.USER_INPUT, Kind.TIMESTAMP,
                                                                   Kind.UNIQUE_ID) else Kind.UNKNOWN)])
    # parsed from text (`json.loads(row["result"])`): its keys come in the text's order, so the same
    # text serialises to the same bytes again (`ordered`)
    return dynamic(m.span(node), m.code(node), Kind.UNKNOWN, Volatility.STABLE, "configuration data", ordered=True)


def _serialize(ev, node, qual, args, kwargs, frame, env) -> Value:
    """`json.dumps(data)` and friends: text whose key order is the data's unless keys are sorted."""
    m = frame.module
    span = m.span(node)
    sort = kwargs.get("sort_keys")
    is_false = isinstance(sort, ast.Constant) and sort.value is False
    if qual.startswith("orjson"):
        opt = kwargs.get("option")
        ordered = opt is not None and "OPT_SORT_KEYS" in m.code(opt)
    elif qual.startswith("yaml"):
        ordered = not is_false  # PyYAML sorts keys unless told not to
    else:
        ordered = sort is not None and not is_false
    data_node = args[0] if args else None
    data = ev.eval(data_node, frame, env) if data_node is not None else None
    order = None if ordered else order_of(data)
    inner = value_order(data)
    if inner is None and isinstance(data, Text):  # `json.dumps(list(kinds))`: sorted keys do not sort a list
        inner = next((ev.unordered_at(s, data_node, frame) if s.anchor is None and s.fix is None else s
                      for s in data.segs if s.kind is Kind.UNORDERED_ITERATION), None)
    if order is not None or inner is not None:
        # keys in the order of a set they were made from, values listed in such an order (which
        # sorted keys do not change): each reported where it was iterated; then what the values hold
        # that changes on every call (`{k: random.sample(...) for k in keys}`), judged where it is made
        drawn = value_drawn(ev, data, frame)
        return Text([s for s in (order, inner, drawn) if s is not None])
    literal = deterministic_dict(data_node, data) or written(data)
    segs = ev.text_of(data, frame) if isinstance(data, (Text, Alt)) else []
    src = most_volatile(segs)
    vol = src.volatility if src is not None else Volatility.UNKNOWN
    if isinstance(data, Seq):
        # a list display of dicts written in the code, or a comprehension whose element is one
        # (`[{"id": c.id, "text": c.text} for c in conditions]`, `[t.model_dump() for t in turns]`):
        # every item has the keys in the code's (or the model's) order
        literal = all(fixed_keys(i) for i in data.items) and (bool(data.items) or not data.repeated)
    if isinstance(data, Seq) and data.ordered:
        literal = True  # `sorted(...)`: a list in a fixed order
    literal = literal or keyless_parameter(ev, data_node, frame) or named_keyless(data_node) or is_configured(segs) \
        or dict_keys_only(data_node)
    if src is not None and src.evidence and vol in (Volatility.PER_REQUEST, Volatility.PER_CONVERSATION):
        evidence = src.evidence  # its content is what changes (in any key order): say where it comes from
    elif literal:
        evidence = "a dict written in the code keeps its order"
    elif ordered:
        evidence = f"`{m.code(node.func)}` with sorted keys"
    else:
        evidence = f"`{m.code(node.func)}` without sorted keys"
    seg = Segment(span=span, kind=Kind.SERIALIZED, volatility=vol if vol is not Volatility.STABLE else Volatility.UNKNOWN,
                  expr=m.code(node), ordered=ordered or literal, evidence=evidence)
    if not seg.ordered:
        seg.stored = stored_read(ev, data, frame)  # read again from a store on each request
        keys = (("keys", "str"),) if string_keyed(ev, data_node, frame) else ()  # sort_keys cannot raise
        seg.anchor = Anchor(span, "serialize-call", (("qualname", qual),) + keys, m.digest)
    return Text([seg])


def _string_template(ev, node, qual, args, kwargs, frame, env) -> Value | None:
    """LangChain's `PromptTemplate.from_template(text)` / `PromptTemplate(template=text, ...)`: a
    str.format template (its `.format(**values)` fills it as `str.format` does). None (a normal
    call) for another template format (jinja2, mustache) or a template not given as text."""
    fmt = kwargs.get("template_format")
    if fmt is not None and const_str(ev.eval(fmt, frame, env)) not in ("f-string", None):
        return None
    text = args[0] if args else kwargs.get("template")
    if text is None:
        return None
    value = ev.eval(text, frame, env)
    if isinstance(value, Text):  # (kept as a template: `lcel_chains` fills it where a chain is invoked)
        partials = ev.eval(kwargs["partial_variables"], frame, env) if "partial_variables" in kwargs else None
        return TemplateText(value.segs, site=frame.module.span(node),
                            partials=dict(partials.items) if isinstance(partials, Mapping) and not partials.open else {})
    return value if isinstance(value, Alt) else None


def _dollar_template(ev, node, qual, args, kwargs, frame, env) -> Value | None:
    """`string.Template(text)`: an object whose `substitute` / `safe_substitute` fill `$name`
    placeholders (methods.py). None when the text is not given."""
    text = args[0] if args else kwargs.get("template")
    if text is None:
        return None
    return Obj("string.Template", args=[ev.eval(text, frame, env)], span=frame.module.span(node), node=node)


def _trim_messages(ev, node, qual, args, kwargs, frame, env) -> Value | None:
    """LangChain's `trim_messages(messages, max_tokens=..., strategy="last")`: the newest messages
    that fit (a sliding window of the conversation); `strategy="first"` keeps the oldest (a
    stable prefix). LiteLLM's `trim_messages(messages, model)` keeps the system messages and the newest
    others that fit (https://docs.litellm.ai/docs/completion/message_trimming). None: no messages."""
    messages = args[0] if args else kwargs.get("messages")
    if messages is None:
        return None
    value = ev.eval(messages, frame, env)
    strategy = None if qual.startswith("litellm") else kwargs.get("strategy")  # (LiteLLM's: always the newest)
    if strategy is not None and const_str(ev.eval(strategy, frame, env)) == "first":
        return value
    return ev.windowed(value, node, frame, name="messages")  # the conversation, whatever the caller's name


def parse_config(path: Path, text: str):
    """The data of a TOML / YAML / JSON text, or None when it does not parse (YAML: aliases and
    size bounded, see `promptlint.templates.safe_yaml`)."""
    try:
        if path.suffix == ".toml":
            try:
                import tomllib
            except ModuleNotFoundError:  # pragma: no cover - Python < 3.11
                import tomli as tomllib
            return tomllib.loads(text)
        if path.suffix in (".yaml", ".yml"):
            from ...templates.safe_yaml import safe_load
            return safe_load(text)
        return json.loads(text)
    except Exception:
        return None


def _generator(ev, node, qual, args, kwargs, frame, env):
    """`random.Random()`: an object whose methods give random values (methods.py); with a seed
    (`random.Random(42)`: its `args`), values that repeat when it is made afresh in the call that
    draws from it (flow/seeded_draws.py), else new on every call as well."""
    return Obj(qual, args=[ev.eval(a, frame, env) for a in args], kwargs={k: ev.eval(v, frame, env) for k, v in kwargs.items()},
               span=frame.module.span(node), node=node)


def repeated_draw(m, node, how: str) -> Value:
    """A draw from a generator seeded afresh in the call that makes it (`how`): the seed's
    values, the same on every call (flow/seeded_draws.py)."""
    return dynamic(m.span(node), m.code(node), Kind.UNKNOWN, Volatility.STABLE,
                   f"`{m.code(node.func)}(...)` drawn from {how}: the same on every call")


KNOWN: dict = {}
for _q in classify.TIMESTAMP_CALLS:
    KNOWN[_q] = _timestamp
for _q in ("time.strftime", "time.strptime"):
    KNOWN[_q] = _strftime
for _q in ("datetime.datetime.fromtimestamp", "datetime.datetime.utcfromtimestamp", "datetime.date.fromtimestamp"):
    KNOWN[_q] = _from_timestamp
for _q in classify.UNIQUE_ID_CALLS:
    KNOWN[_q] = _unique_id
for _q in classify.UNORDERED_CALLS:
    KNOWN[_q] = _unordered_set if _q in ("set", "frozenset") else _unordered
for _q in ("listdir", "scandir", "as_completed"):
    KNOWN[_q] = _unordered
for _q in ("os.path.join", "os.path.dirname", "os.path.abspath", "os.path.realpath"):
    KNOWN[_q] = _os_path
for _q in ("textwrap.dedent", "inspect.cleandoc", "dedent", "cleandoc"):
    KNOWN[_q] = _dedent
for _q in (*_SERIALIZERS, "dumps"):
    KNOWN[_q] = _serialize
for _q in _LOADERS:
    KNOWN[_q] = _config_load
for _q in ("pathlib.Path", "pathlib.PurePath", "Path"):
    KNOWN[_q] = _path
for _q in ("importlib.resources.files", "importlib_resources.files"):
    KNOWN[_q] = _package_files
for _q in ("input", "sys.stdin.readline", "sys.stdin.read", "sys.stdin.readlines"):
    KNOWN[_q] = _user_input
for _q in ("asyncio.wait_for", "asyncio.run", "asyncio.shield", "asyncio.ensure_future", "asyncio.create_task",
           "anyio.run", "asgiref.sync.async_to_sync", "copy.copy", "copy.deepcopy"):
    KNOWN[_q] = _passthrough
for _q in ("typing.cast", "typing_extensions.cast"):
    KNOWN[_q] = _cast


def _defaultdict(ev, node, qual, args, kwargs, frame, env) -> Value:
    """`defaultdict(set)`: a dict of sets filled by key (`levels[level].add(key)`), each read back
    in the order of its set; any other default: the call as any other."""
    m = frame.module
    if args and isinstance(args[0], ast.Name) and args[0].id in ("set", "frozenset") and not kwargs:
        held = dynamic(m.span(args[0]), f"{args[0].id}()", Kind.UNORDERED_ITERATION, Volatility.PER_PROCESS,
                       f"`{args[0].id}(...)`: iteration order depends on the hash seed")
        return Mapping({}, span=m.span(node), node=None, repeated=True, value=held)
    return ev.invoke(ev.eval(node.func, frame, env), node, args, kwargs, frame, env, qual)


KNOWN["collections.defaultdict"] = _defaultdict
for _q in ("dict.fromkeys", "collections.OrderedDict.fromkeys", "OrderedDict.fromkeys"):
    KNOWN[_q] = fromkeys


def _gather(ev, node, qual, args, kwargs, frame, env) -> Value | None:
    """`await asyncio.gather(a(), b())`, `asyncio.gather(*[answer(q, g) for g in groups])`: the
    list of what each awaitable gives, in the order they are passed (not the order they finish:
    that is `as_completed`); a spread we cannot read leaves the call unknown. The awaitables of a
    spread made by iterating an unordered source (`gather(*[fetch(n) for n in names])` of a set)
    give their results in that order."""
    items, repeated, order = [], False, None
    for arg in node.args:
        if isinstance(arg, ast.Starred):
            spread = ev.eval(arg.value, frame, env)
            if not isinstance(spread, Seq):
                return ev.opaque_call(node, [], frame)
            items.extend(spread.items)
            repeated = repeated or spread.repeated
            if order is None and spread.unordered is not None and not spread.ordered:
                order = spread.unordered
        else:
            items.append(ev.eval(arg, frame, env))
    return Seq(items, frame.module.span(node), repeated=repeated, node=node, unordered=order)


KNOWN["asyncio.gather"] = _gather

for _m in ("langchain_core.prompts", "langchain_core.prompts.prompt", "langchain.prompts", "langchain.prompts.prompt",
           "langchain"):
    KNOWN[f"{_m}.PromptTemplate.from_template"] = KNOWN[f"{_m}.PromptTemplate"] = _string_template

KNOWN["string.Template"] = _dollar_template
KNOWN["re.sub"] = sub_call  # a template filled by a pattern (flow/replaced.py)
for _q in classify.RANDOM_GENERATORS:
    KNOWN[_q] = _generator
for _m in ("langchain_core.messages", "langchain_core.messages.utils", "langchain.schema.messages", "litellm",
           "litellm.utils"):
    KNOWN[f"{_m}.trim_messages"] = _trim_messages


def known_prefix(qual: str):
    """The handler of a family of calls by prefix (host and configuration: stable), or None."""
    if qual and classify.is_stable_call(qual):
        return _stable
    return None


class LibraryMixin:
    """File reading shared by the known functions and the method calls."""

    def read_file(self, path: Path | None, node, frame, volatile: Segment | None = None) -> Value:
        """The text of a file read with a static path: static text located in that file. A file
        named by a volatile value (`volatile`: a uuid, a date, the user's message in the path)
        changes as often as that value."""
        from ...model import Position
        from ...source import SourceError, read_text
        m = frame.module
        span = m.span(node)
        if path is None and volatile is not None:
            return dynamic(span, m.code(node), Kind.UNKNOWN, volatile.volatility,
                           f"text read from a file named with `{volatile.expr}`", origin=volatile.span)
        if path is None or not source.is_file(path):  # a dependency of the analysis, found or not
            return dynamic(span, m.code(node), Kind.UNKNOWN, Volatility.STABLE,
                           "text read from a file that is not found statically")
        try:
            text = read_text(path)
        except SourceError:
            return dynamic(span, m.code(node), Kind.UNKNOWN, Volatility.STABLE, "unreadable file")
        return Text([Segment(text=text, span=Span(self.display(path), Position(1, 1), Position(1, 1)))])
