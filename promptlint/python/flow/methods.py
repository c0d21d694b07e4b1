"""Method calls: methods of paths, files, config data, dicts and lists, `str` methods (`format`,
`join`, `strip`, `strftime` of a timestamp...), methods of objects of the tree (bound and
followed), rendered templates, and methods of objects we cannot see."""
from __future__ import annotations

import ast
from ...model import replace
from pathlib import Path

from ...model import Kind, Precision, Segment, Source, Volatility
from ... import classify
from . import rewrites
from . import builders
from .configured import all_configured
from .fill_methods import fill_call
from .overrides import overridden
from .per_option import each_option, per_caller_in
from .containers import one_of_table
from .variants import MAX_VARIANTS, dict_variants, flat_options, list_variants, one_dict
from .keyed import filled_dict
from .library import KNOWN, repeated_draw
from .seeded_draws import seeded_here
from .class_facts import optional_of
from .mcp_clients import item_annotation, mcp_sdk_instance
from .segment_text import const_str, slice_segment
from .turn_text import writes_turn
from .values import (Alt, ClassRef, Config, Func, Mapping, Obj, PathV, Seq, Spread, Text, Value, dynamic, keyword_read,
                     most_volatile)

#: Methods of a set that return a set (its order, too, depends on the hash seed).
_SET_METHODS = ("union", "intersection", "difference", "symmetric_difference", "copy")
_TRIM = ("strip", "lstrip", "rstrip", "upper", "lower", "title", "capitalize", "replace", "removeprefix",
         "removesuffix", "expandtabs", "casefold")


#: Methods of a Jinja environment that make a template object from its text or file name.
_TEMPLATE_MAKERS = frozenset({"from_string", "get_template"})
#: Jinja environment classes (qualified names end so), of jinja2 and its sandbox.
_ENVIRONMENTS = ("jinja2.Environment", "jinja2.environment.Environment", "SandboxedEnvironment",
                 "ImmutableSandboxedEnvironment", "NativeEnvironment")

#: Listing methods of `pathlib.Path` (no str has them): what they list comes in the file system's order.
_PATH_LISTINGS = frozenset({"iterdir", "glob", "rglob"})

class MethodsMixin:
    """Method calls of the Evaluator."""

    def method(self, base: Value, method: str, node: ast.Call, args, kwargs, frame, env) -> Value:
        m = frame.module
        span = m.span(node)
        if method in classify.DETERMINISTIC_DICTS and not args and not isinstance(base, (Mapping, Seq)):
            return dynamic(span, m.code(node), Kind.UNKNOWN, Volatility.UNKNOWN,
                           "a dict in the model's field order", ordered=True)
        if isinstance(base, PathV):
            found = self._path_method(base, method, node, args, frame, env)
            if found is not None:
                return found
        if isinstance(base, Obj) and not args and not kwargs and \
                base.qualname.split(".", 1)[0] in classify.RELATIVE_TIME_METHODS.get(method, ()):
            return dynamic(span, m.code(node), Kind.TIMESTAMP, Volatility.PER_REQUEST,
                           f"`{method}()`: a time written relative to now", precision=Precision.SUB_DAY)
        if isinstance(base, Obj) and base.qualname == "file" and method == "read":
            p = base.args[0] if base.args else None
            if isinstance(p, PathV):
                return self.read_file(p.path, node, frame, p.volatile)
            path = const_str(p) if p is not None else None
            if path is not None:
                return self.read_file((m.path.parent / path) if not Path(path).is_absolute() else Path(path), node, frame)
        if isinstance(base, Obj) and base.qualname in classify.RANDOM_GENERATORS \
                and f"random.{method}" in classify.UNIQUE_ID_CALLS:
            # `self.rand = random.Random()` then `self.rand.randint(0, 10**6)`: as the module's function;
            # one seeded afresh in this call (`rng = random.Random(42)`) repeats its values
            if (base.args or base.kwargs) and seeded_here(frame, node, base.node):
                return repeated_draw(m, node, f"`{m.code(base.node)}`, seeded in this call")
            return KNOWN[f"random.{method}"](self, node, f"random.{method}", args, kwargs, frame, env)
        if isinstance(base, Obj) and base.qualname == "string.Template" and method in ("substitute", "safe_substitute"):
            values = {k: self.eval(v, frame, env) for k, v in kwargs.items()}
            given = self.eval(args[0], frame, env) if args else None
            if isinstance(given, Mapping):
                values = {**given.items, **values}
            if base.args and isinstance(base.args[0], (Text, Alt)):
                return self.dollar_text(Text(self.text_of(base.args[0], frame)), values, frame)
        if isinstance(base, Alt) and not any(hasattr(t, method) for t in (str, bytes, dict, list)) \
                and per_caller_in(base):
            # a method of a value that is one per caller (the object each override of an abstract
            # method returns): called on each option apart, one result per caller (per_option.py)
            return each_option(base, lambda o: self.method(o, method, node, args, kwargs, frame, env))
        if isinstance(base, Alt) and any(_instance(o) for o in base.options):
            # an attribute set to one of several objects (`enhancer or DefaultEnhancer(memory)`):
            # the call gives what the method of each gives, a default we cannot read included
            return Alt([self.method(o, method, node, args, kwargs, frame, env) for o in base.options], span=span)
        if method == "list_tools" and isinstance(base, Text):
            base = self._annotated_receiver(base, node, frame)  # `connector: BaseConnector`, its callers' unread
        if isinstance(base, Obj) and base.qualname.startswith("instance:"):
            found = builders.called(self, base, method, node, frame, env)  # a section added, or the text built
            if found is not None:
                return found
        if isinstance(base, (Obj, ClassRef)):
            member = self.attr_of(base, method, node, frame)
            if isinstance(member, Func) and (filled := fill_call(self, member, base, node, args, kwargs, frame, env)):
                return filled  # a template class's fill method: its template with the dict's values
            if isinstance(member, Func) and isinstance(base, Obj) \
                    and (found := overridden(self, member, base, node, args, kwargs, frame, env)) is not None:
                return found  # an abstract method: what the subclasses' overrides return (overrides.py)
            if isinstance(member, Func):
                bound = self.bind(member, args, kwargs, frame, env, node)
                result = self.call_function(member, bound, frame.depth + 1, span)
                if result is not None:
                    return self.after_call(result, node, self.forced(bound), frame)
                return self.opaque_call(node, self.forced(bound), frame)
            if isinstance(member, ClassRef) and isinstance(base, Obj):  # `module.Class(...)`: an instance
                return self.invoke(member, node, args, kwargs, frame, env, m.qualified_name(node.func) or "")
        if isinstance(base, Alt) and method == "render" and any(isinstance(o, Obj) for o in base.options):
            # one template or another (`env.from_string(custom)` if given, else the packaged file),
            # each rendered with the same values; an override we cannot read leaves the text read
            # (as `candidates._richest` judges a prompt on its default)
            rendered = [self.method(o, method, node, args, kwargs, frame, env) for o in base.options[:4]]
            read = [r for r in rendered if isinstance(r, Text) and any(s.is_static and s.text.strip() for s in r.segs)]
            return read[0] if len(read) == 1 else Alt(read or rendered, span)
        if isinstance(base, Alt) and method in _TEMPLATE_MAKERS and (
                made := [o for o in base.options if isinstance(o, Obj) and o.qualname.endswith(_ENVIRONMENTS)]):
            # `if not env: env = SandboxedEnvironment()` then `env.from_string(T)`: whichever environment
            # the caller hands in, the template is the same text: made by the environment read
            found = [self.method(o, method, node, args, kwargs, frame, env) for o in made[:4]]
            return found[0] if len(found) == 1 else Alt(found, span)
        if method == "copy" and not args and isinstance(base, Alt) and (dict_variants(base) or list_variants(base)):
            return base  # a request dict completed by conditions (`base_args["system"] = [...]`), copied
        if method == "list_tools" and not args and _mcp_session(base, m):
            # a session not known statically (handed in, kept in an attribute, None until opened)
            # in a module that uses the MCP client: `async def load(self, session): await session.list_tools()`
            return dynamic(span, m.code(node), Kind.UNORDERED_ITERATION, Volatility.UNKNOWN, classify.MCP_LISTING)
        if method in ("values", "keys", "items") and not args and (filled := filled_dict(base)) is not None:
            return _view(filled, method)  # a dict filled by key in a loop, or left as it was by an `if`
        if method in ("pop", "get") and 1 <= len(args) <= 2 and not kwargs and (
                read := self._keyword_read(base, node, args, frame, env)) is not None:
            return read  # `kwargs.pop("schema")`: a keyword handed in through `**kwargs`
        if method == "get" and args and isinstance(base, Alt):
            key = const_str(self.eval(args[0], frame, env))
            found = self.item_of_variants(base, key, node, frame) if key is not None else None
            if found is not None:
                return found
        if isinstance(base, Alt) and not any(hasattr(t, method) for t in (str, bytes, dict)):
            found = self.call_of_variants(base, method, node, args, kwargs, frame, env)
            if found is not None:
                return found
        if method in _PATH_LISTINGS and isinstance(base, (Text, Alt)):
            # `root.iterdir()` of a value read as text (a parameter annotated `Path`, `self.root / "skills"`):
            # no str has the method, so it is a path listed in the file system's order
            return dynamic(span, m.code(node), Kind.UNORDERED_ITERATION, Volatility.UNKNOWN,
                           classify.UNORDERED_METHODS[method])
        if isinstance(base, (Text, Alt)):
            return self.str_method(base, method, node, args, kwargs, frame, env)
        found = self._container_method(base, method, args, frame, env)
        if found is not None:
            return found
        if method in classify.UNORDERED_METHODS and not isinstance(base, (Text, Seq)):
            return dynamic(span, m.code(node), Kind.UNORDERED_ITERATION, Volatility.UNKNOWN,
                           classify.UNORDERED_METHODS[method])
        if self.template_hook is not None and (method == "render" or isinstance(base, Obj) and base.qualname.endswith(
                ("Template", "get_template", "from_string"))):
            rendered = self.template_hook(self, base, node, args, kwargs, frame, env)
            if rendered is not None:
                return rendered
        if isinstance(base, Obj) and not base.qualname.startswith(("self:", "instance:")):
            kw_vals = {k: self.eval(v, frame, env) for k, v in kwargs.items()}
            arg_vals = [self.eval(a, frame, env) for a in args]
            fetched = None if method[:1].isupper() else self.fetched(node, arg_vals + list(kw_vals.values()), frame)
            if fetched is not None:
                return fetched
            return Obj(f"{base.qualname}.{method}", args=[base, *arg_vals], kwargs=kw_vals, span=span, node=node)
        inputs = [self.eval(a, frame, env) for a in args] + [self.eval(v, frame, env) for v in kwargs.values()]
        return self.opaque_call(node, inputs + ([base] if isinstance(base, (Text, Alt)) else []), frame)

    def _keyword_read(self, base, node, args, frame, env) -> Value | None:
        """`kwargs.pop(key[, default])` / `kwargs.get(...)` of the keywords handed a `**kwargs`
        parameter, the key a constant: `values.keyword_read`; None for another receiver or key."""
        if not (isinstance(base, Mapping) and base.keywords or isinstance(base, Alt) and base.options
                and all(isinstance(o, Mapping) and o.keywords for o in base.options)):
            return None
        key = const_str(self.eval(args[0], frame, env))
        if key is None:
            return None
        m = frame.module
        default = self.eval(args[1], frame, env) if len(args) == 2 else None
        return keyword_read(base, key, default, m.span(node), m.code(node))

    def _annotated_receiver(self, base: Text, node: ast.Call, frame) -> Value:
        """The receiver of a tool listing (`connector.list_tools()`) that is a parameter of the
        frame's function whose callers' value we cannot read (`for c in connectors: await
        load(c)`: an element of their list) as what its annotation names: an instance of a class
        of the tree (`connector: BaseConnector`, whose own `list_tools` is then read), or an MCP
        SDK object (`session: ClientSession`); likewise an element of a container attribute of
        the class that the function's loop walks (`for name, wb in self._workbenches.items()`),
        as the item class its annotation names (`Dict[str, McpWorkbench]`, a library's class
        too); `base` otherwise."""
        recv = node.func.value if isinstance(node.func, ast.Attribute) else None
        if not isinstance(recv, ast.Name) or frame.func is None or len(base.segs) != 1 \
                or base.segs[0].kind is not Kind.UNKNOWN:
            return base
        a = frame.func.args
        param = next((p for p in [*a.posonlyargs, *a.args, *a.kwonlyargs] if p.arg == recv.id), None)
        ann = optional_of(param.annotation) if param is not None and param.annotation is not None else \
            item_annotation(frame, recv.id)
        if ann is None:
            return base
        cls = self._class_for_annotation(frame, ann) if isinstance(ann, (ast.Name, ast.Attribute, ast.Constant)) else None
        if cls is not None:
            return Obj(f"instance:{cls.node.name}", node=cls.node, args=[ClassRef(cls.module, cls.node)])
        if param is None and isinstance(ann, (ast.Name, ast.Attribute)):
            qual = frame.module.qualified_name(ann) or ""
            if "." in qual and qual.rsplit(".", 1)[-1][:1].isupper():  # a library's class (`McpWorkbench`)
                return Obj(qual, span=frame.module.span(ann), node=ann)
        return mcp_sdk_instance(frame.module, ann) or base

    def _path_method(self, base: PathV, method: str, node, args, frame, env) -> Value | None:
        m = frame.module
        if method in ("read_text", "read_bytes", "open"):
            return self.read_file(base.path, node, frame, base.volatile)
        if method in ("with_name", "joinpath", "with_suffix"):
            vals = [self.eval(a, frame, env) for a in args]
            if method == "joinpath":
                return self.path_join(base, vals, frame)
            names = [const_str(v) for v in vals]
            if base.path is None or not names or any(n is None for n in names):
                return PathV(None, base.volatile)
            if method == "with_name":
                return PathV(base.path.with_name(names[0]), base.volatile)
            return PathV(base.path.with_suffix(names[0]), base.volatile)
        if method in ("resolve", "absolute", "expanduser"):
            return base
        if method in classify.UNORDERED_METHODS:
            return dynamic(m.span(node), m.code(node), Kind.UNORDERED_ITERATION, Volatility.UNKNOWN,
                           classify.UNORDERED_METHODS[method])
        return None

    def _container_method(self, base, method: str, args, frame, env) -> Value | None:
        if isinstance(base, Config) and method == "get" and args:
            key = const_str(self.eval(args[0], frame, env))
            if key is not None and isinstance(base.data, dict) and key in base.data:
                return Config(base.path, base.text, [*base.keys, key], base.data[key])
        if isinstance(base, Mapping) and method == "get" and args:
            key = const_str(self.eval(args[0], frame, env))
            if key in base.items:
                return base.items[key]
            if key is not None and len(args) == 2 and base.node is not None and not base.repeated:
                return self.eval(args[1], frame, env)  # a key a dict the code writes does not hold: the default
            if key is None and len(args) == 2:  # `TABLE.get(name, name)`: one of its texts, or the default
                chosen = one_of_table(base)
                if chosen is not None:
                    default = self.eval(args[1], frame, env)
                    if default is None:
                        default = dynamic(frame.module.span(args[1]), frame.module.code(args[1]))
                    return Alt([*(chosen.options if isinstance(chosen, Alt) else [chosen]), default], base.span)
        if isinstance(base, Mapping) and method in ("values", "keys", "items") and not args:
            return _view(base, method)
        if isinstance(base, (Seq, Mapping)) and method == "copy" and not args:
            return base  # `payload = base_args.copy()`: the same items (a write to one rebinds its name)
        return None

    def str_method(self, base, method: str, node, args, kwargs, frame, env) -> Value:
        m = frame.module
        span = m.span(node)
        if method == "format" and isinstance(base, Alt):
            # a template that is one of several: format each variant
            return Alt([self.str_method(o, method, node, args, kwargs, frame, env) for o in base.options], base.span,
                       base.fallback)
        if method == "replace" and len(args) in (2, 3) and not kwargs:  # a placeholder filled (flow/replaced.py)
            return self.replaced_text(base, node, args, frame, env)
        segs = self.text_of(base, frame)
        if method == "copy" and any(s.kind is Kind.HISTORY for s in segs):
            return base
        if method in _SET_METHODS and any(s.kind is Kind.UNORDERED_ITERATION for s in segs):
            return dynamic(span, m.code(node), Kind.UNORDERED_ITERATION, Volatility.PER_PROCESS,
                           f"`.{method}(...)` of a set: iteration order depends on the hash seed")
        if method in ("decode", "encode"):
            return Text(segs)  # the same text as bytes and back (`sanitize(text)`: its pieces keep their names)
        if method in ("strip", "lstrip", "rstrip", "replace") and \
                any(s.kind in (Kind.SERIALIZED, Kind.UNORDERED_ITERATION) for s in segs):
            return Text(segs)  # trimming keeps the order problem
        if method == "format":
            values = self.spread_keywords(node, frame, env)
            values.update({k: self.eval(v, frame, env) for k, v in kwargs.items()})
            # every argument written out: a field none of them names would make `str.format` raise,
            # so the text is formatted by a safe formatter (a template class) that leaves it as written
            written = not any(k.arg is None for k in node.keywords) and not any(isinstance(a, ast.Starred) for a in node.args)
            return self.format_text(Text(segs), [self.eval(a, frame, env) for a in args], values, frame, span,
                                    literal_unbound=written and bool(kwargs))
        if method == "join" and args:
            joined = self.join(segs, args[0], frame, env, node)
            apart = self.rendered_apart(frame.func, args[0])
            if apart is None:
                return joined
            return Text(rewrites.mark(self.text_of(joined, frame), apart, m, node))
        if method in _TRIM:
            return self._trim(segs, method, args, span)
        src = most_volatile(segs)
        if src is not None and src.kind is Kind.TIMESTAMP:
            found = self._time_method(src, method, node, args, frame, env)
            if found is not None:
                return found
        if src is not None and (src.kind is Kind.UNIQUE_ID or src.evidence.endswith(classify.PICKED_AT_RANDOM)) \
                and method in classify.MODEL_SENDS:
            # a request sent with a client or model picked at random (`random.choice(llms).invoke(...)`):
            # the reply is the model's output, not the pick; data fetched with the user's message stays so
            inputs = [self.eval(a, frame, env) for a in args] + [self.eval(v, frame, env) for v in kwargs.values()]
            return self.fetched(node, inputs, frame) or dynamic(
                span, m.code(node), Kind.UNKNOWN, Volatility.UNKNOWN, f"the reply of a model to `{m.code(node.func)}(...)`")
        if src is not None and src.kind is Kind.UNIQUE_ID and src.evidence.endswith(classify.PICKED_AT_RANDOM) \
                and not any(hasattr(t, method) for t in (str, bytes, dict, list, set, tuple)):
            # `random.choice(agents).get_prompt()`: what the element (an object) picked gives, per
            # request; no random value itself (as `random.choice(nodes).code` is: core.derived); a
            # picked record's data (`sample[0].keys()`, `r.get("kind")`) stays the draw's
            return dynamic(span, m.code(node), Kind.UNKNOWN, Volatility.PER_REQUEST, f"read from {src.evidence}",
                           origin=src.origin or src.span)
        if src is not None and src.kind is Kind.UNIQUE_ID:
            return Text([replace(src, span=span, expr=m.code(node), origin=None, anchor=None)])
        if method in ("split", "splitlines", "count", "find", "startswith", "endswith", "hex"):
            return self.derived(Text(segs), node, frame, m.code(node))
        if not hasattr(str, method):
            # a method of an object we cannot see (a retriever, a store): fetched with its inputs?
            inputs = [self.eval(a, frame, env) for a in args] + [self.eval(v, frame, env) for v in kwargs.values()]
            fetched = self.fetched(node, inputs, frame)
            if fetched is not None:
                return fetched
        if src is None and segs and all(s.is_static for s in segs):
            if not hasattr(str, method):
                # not a str method: the constant (a field's default None) stands in for an object
                # set elsewhere (a store, a retriever), whose result is not known
                return dynamic(span, m.code(node), evidence=f"result of `{m.code(node.func)}(...)`", source=Source.CALL)
            return dynamic(span, m.code(node), Kind.UNKNOWN, Volatility.STABLE, "computed from constants")
        return self.derived(Text(segs), node, frame, m.code(node))

    def replaced_text(self, base, node, args, frame, env) -> Value:
        """`base.replace(old, new[, count])`: `replaced.replaced`, the placeholder a constant, a text made
        at run time (found by its values) or not known (None)."""
        from .replaced import filled_by_items, filled_by_names, replaced
        if len(args) == 2:
            filled = filled_by_items(self, base, node, args, frame, env)
            if filled is None:
                filled = filled_by_names(self, base, node, args, frame, env)
            if filled is not None:
                return filled
        count = const_str(self.eval(args[2], frame, env)) if len(args) == 3 else None
        limit = int(count) if count is not None and count.isdigit() else -1
        old = Text(self.text_of(self.eval(args[0], frame, env), frame))
        placeholder = const_str(old)
        if placeholder is None and any(not s.is_static for s in old.segs):
            placeholder = old  # made at run time: found by the values it is made of
        return replaced(self, base, placeholder, self.eval(args[1], frame, env), node, frame, limit)

    @staticmethod
    def _trim(segs: list[Segment], method: str, args, span) -> Value:
        src = most_volatile(segs)
        if method in ("strip", "lstrip", "rstrip") and not args:
            out = [replace(s) for s in segs]
            if method in ("strip", "lstrip") and out and out[0].is_static:
                first = out[0]
                out[0] = slice_segment(first, len(first.text) - len(first.text.lstrip()))
            if method in ("strip", "rstrip") and out and out[-1].is_static:
                last = out[-1]
                out[-1] = slice_segment(last, 0, len(last.text.rstrip()))
            return Text(out)
        if method == "replace":
            return Text(segs)
        if src is None:
            joined = "".join(s.text for s in segs)
            text = joined if method in ("removeprefix", "removesuffix") else getattr(joined, method)()
            return Text([Segment(text=text, span=segs[0].span if segs else span)])
        return Text(segs)

    def _time_method(self, src: Segment, method: str, node, args, frame, env) -> Value | None:
        m = frame.module
        span = m.span(node)
        if method in classify.TIMESTAMP_ZONE:
            return dynamic(span, m.code(node), Kind.UNKNOWN, Volatility.STABLE, "a time zone, not a time")
        if method == "strftime":
            fmt = const_str(self.eval(args[0], frame, env)) if args else None
            prec = classify.strftime_precision(fmt) if fmt is not None else src.precision
            if fmt is not None and prec is None:
                return dynamic(span, m.code(node), Kind.UNKNOWN, Volatility.STABLE, "a time-zone name, not a time")
            return Text([replace(src, span=span, expr=m.code(node), precision=prec or src.precision,
                                 evidence=f"`{m.code(node)}`", origin=None, anchor=None)])
        if method in classify.TIMESTAMP_METHODS:
            prec = classify.TIMESTAMP_METHODS[method] or src.precision
            return Text([replace(src, span=span, expr=m.code(node), precision=prec, origin=None,
                                 evidence=f"`{m.code(node)}`", anchor=None)])
        return None

    def spread_keywords(self, node: ast.Call, frame, env) -> dict:
        """The entries of the call's `**mapping` arguments whose keys the code fixes (a dict
        display, `dict(...)`, one of several such dicts: every key any of them sets)."""
        out: dict = {}
        for kw in node.keywords:
            if kw.arg is not None:
                continue
            found = one_dict(self.eval(kw.value, frame, env))
            if found is not None:
                out.update(found.items)
        return out

    def rendered_apart(self, func, joined) -> tuple | None:
        """`rewrites.rendered_apart` for a list joined by its name in `func`, once per function
        and name (`_apart`, cleared with the other caches)."""
        if func is None or not isinstance(joined, ast.Name):
            return None
        key = (id(func), joined.id)
        cache = self._apart
        if key not in cache:
            cache[key] = rewrites.rendered_apart(func, joined.id)
        return cache[key]

    def join(self, sep_segs, iterable_node, frame, env, node) -> Value:
        """`sep.join(iterable)`: the elements' text when the list is known, else its volatility
        (an unordered source is reported where it is iterated)."""
        m = frame.module
        it = self.eval(iterable_node, frame, env)
        lists = [it] if isinstance(it, Seq) else \
            (flat_options(it, lambda v: isinstance(v, Seq)) or [])[:MAX_VARIANTS] if isinstance(it, Alt) else []
        turns = next((v for v in lists if v.repeated and v.items and self._writes_turns(v, frame)), None)
        if turns is not None:
            # one labelled turn per stored pair (`f"User: {q}\nAssistant: {a}"`, or the two sides
            # appended one after the other in the loop, the assistant's under a condition): the
            # conversation as text
            return dynamic(m.span(node), m.code(node), Kind.HISTORY, Volatility.UNKNOWN,
                           "the conversation written as text, a user and an assistant turn per item",
                           origin=turns.span)
        joined = self._join_seq(sep_segs, it, frame, whole=True)
        if joined is not None:
            return joined
        if isinstance(it, Alt):  # one of several lists (grown in branches): each joined
            options = [self._join_seq(sep_segs, o, frame) for o in list_variants(it) or it.options]
            if all(o is not None for o in options):
                return Alt(options, it.span, configured=all_configured(it))
        segs = self.text_of(it, frame)
        unordered = next((s for s in segs if s.kind is Kind.UNORDERED_ITERATION), None)
        if unordered is not None and isinstance(it, Text) and unordered.anchor is None and unordered.fix is None:
            return Text([self.unordered_at(unordered, iterable_node, frame)])  # iterated here: fix here
        if unordered is not None:
            return Text([unordered])
        src = most_volatile(segs)
        span = m.span(node)
        if src is None:
            return dynamic(span, m.code(node), Kind.UNKNOWN, Volatility.STABLE, "joined constants")
        if src.kind is Kind.SERIALIZED:
            return Text([src])  # reported at the dumps call, where its fix (sort_keys=True) edits
        expr = src.expr if src.kind is Kind.HISTORY and src.older else m.code(node)  # (the part of which conversation)
        return Text([replace(src, span=span, expr=expr, origin=src.origin or src.span, anchor=None)])

    def _writes_turns(self, it: Seq, frame) -> bool:
        """True when a list grown in a loop writes a whole labelled turn per pass: its last item
        (`f"User: {q}\nAssistant: {a}"`), or the items the loop appends, in order (`lines.append(
        f"User: {q}")`, then `lines.append(f"Assistant: {a}")`)."""
        if writes_turn(self.text_of(it.items[-1], frame)):
            return True
        looped = [i for i in it.items[it.head:] if not isinstance(i, Spread)]
        return len(looped) > 1 and writes_turn([s for i in looped for s in self.text_of(i, frame)])

    def _join_seq(self, sep_segs, it, frame, whole: bool = False) -> Text | None:
        """The joined text of a known list. A list grown in a loop (`lines = [intro]; for x in xs:
        lines.append(f"- {x}")`) is its `head` items, then each later item once: what the items
        hold (a clock reading, an id) enters the text there, and the text before the loop stays the
        static prefix; when those items are fixed text, a stable segment of unknown text where the
        loop starts (how many it appends is not known). None for a list holding an unknown list spread into it, and for
        one grown in a loop over an unordered source (reported where it is iterated) or, when it is
        the `whole` list joined (not one variant of several), made of looped items only (no static
        prefix to keep: its most volatile item, reported at its dumps call or cut)."""
        if not isinstance(it, Seq) or any(isinstance(i, Spread) for i in it.items):
            return None
        if it.repeated and (it.unordered is not None and not it.ordered or whole and it.head == 0):
            return None  # its order is the finding; or nothing precedes the loop (one segment, below)
        out: list[Segment] = []
        head = it.head if it.repeated else len(it.items)
        for i, item in enumerate(it.items):
            if i:
                out.extend(sep_segs)
            if i == head:
                at = len(out)
            out.extend(self.text_of(item, frame))
        if it.repeated and all(s.is_static for s in out[at if head < len(it.items) else len(out):]):
            # the looped items are fixed text: how many there are is what is not known
            loop = Segment(span=it.span, kind=Kind.UNKNOWN, volatility=Volatility.STABLE,
                           expr="items appended in a loop", evidence="a list grown in a loop")
            out.insert(at if head < len(it.items) else len(out), loop)
        return Text(out)


def _view(mapping: Mapping, method: str) -> Seq:
    """`d.values()` / `d.keys()` / `d.items()` as a list in the dict's order (unordered when the
    dict was built by iterating an unordered source)."""
    if mapping.repeated:
        key = mapping.key if mapping.key is not None else \
            Text([Segment(kind=Kind.UNKNOWN, volatility=Volatility.STABLE, expr="key", span=mapping.span)])
        value = mapping.value if mapping.value is not None else Text([])
        item = {"values": value, "keys": key, "items": Seq([key, value], mapping.span, is_tuple=True)}[method]
        return Seq([item], mapping.span, repeated=True, unordered=mapping.unordered)
    keys = [Text([Segment(text=k, span=mapping.key_spans.get(k))]) for k in mapping.items]
    if method == "keys":
        return Seq(keys, mapping.span)
    if method == "values":
        return Seq(list(mapping.items.values()), mapping.span)
    return Seq([Seq([k, v], mapping.span, is_tuple=True) for k, v in zip(keys, mapping.items.values())], mapping.span)


def _instance(value) -> bool:
    """An instance of a class of the analysed tree (its methods can be read)."""
    return isinstance(value, Obj) and value.node is not None and value.qualname.startswith("instance:")


def _mcp_session(base, module) -> bool:
    """True for a receiver of `list_tools()` that is an MCP client session built in the code and
    kept where the value is not one object (`self._session = await
    stack.enter_async_context(ClientSession(read, write))`, None until opened): an option of it is
    an object of the `mcp` package (or wraps one), and every other option (None left out) is an
    object or a value not known statically. An aggregator of the code's own (`self.aggregator`)
    is not one: its order is the code's."""
    if not any(v == "mcp" or v.startswith("mcp.") for v in module.imports.values()):
        return False
    options, todo = [], [base]
    while todo and len(options) < 16:
        v = todo.pop()
        if isinstance(v, Alt):
            todo.extend(v.options)
        else:
            options.append(v)
    kept = [v for v in options if not (isinstance(v, Text) and all(s.is_static and s.text in ("None", "") for s in v.segs))]
    return any(_mcp_object(v) for v in kept) and all(
        isinstance(v, Obj) or (isinstance(v, Text) and len(v.segs) == 1 and v.segs[0].kind is Kind.UNKNOWN) for v in kept)


def _mcp_object(value, depth: int = 0) -> bool:
    """An object of the `mcp` package, or one made from one (`enter_async_context(ClientSession(...))`)."""
    if not isinstance(value, Obj) or depth > 2:
        return False
    return value.qualname.startswith("mcp.") or any(_mcp_object(a, depth + 1) for a in value.args)
