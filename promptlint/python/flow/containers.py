"""Containers: list, tuple, set and dict displays, comprehensions, subscripts, growing lists
and iteration (paths: paths.py). Volatility and order survive them: a list built by iterating a set stays
unordered, an element of a list of user messages stays per-request, a path with a uuid in one of
its parts stays volatile (docs/policies.md, Policy 9).
"""
from __future__ import annotations

import ast
from ...model import replace
from ...classify import MCP_LISTING, WALK_LISTS
from ...model import Anchor, Kind, Segment, Volatility
from .paths import PathsMixin
from .hashing import seed_free_set
from .keyed import KeyedMixin, entry_part, held_set, holds_order
from .rewrites import comp_apart, env_resolver, marked
from .scopes import enumerated
from .frames import Thunk
from .binding_syntax import target_names, target_position
from .builtin_calls import zip_member
from .values import (Alt, Config, Mapping, Obj, Seq, Spread, Text, Value, dynamic, from_older, grown_name, held_order,
                     keyword_read, most_volatile, sublist)
from .growth import GrowthMixin
from .fitted_starts import fitted_start
from .spread_index import conversation_at, crossed_spread
from ..walk import subtree
from .variants import MAX_VARIANTS, dict_variants, merged_dict, one_dict
from .windows import (MESSAGE_OF, WindowsMixin, history_segment, named_conversation, short_of_end, slides, takes_newest,
                      window_of)
from .item_maps import flattens, selects_items, message_of_item, renders_each, one_for_one


class ContainersMixin(WindowsMixin, KeyedMixin, PathsMixin, GrowthMixin):
    """Container operations of the Evaluator."""

    def sequence(self, node: ast.List | ast.Tuple | ast.Set, frame, env) -> Value:
        m = frame.module
        span = m.span(node)
        items: list[Value] = []
        for el in node.elts:
            if isinstance(el, ast.Starred):
                inner = self.eval(el.value, frame, env)
                if isinstance(inner, Seq) and not inner.repeated:
                    items.extend(inner.items)
                else:
                    items.append(Spread(inner, m.span(el), m.code(el.value)))
            else:
                items.append(self.eval(el, frame, env))
        if isinstance(node, ast.Set) and seed_free_set(node):
            return Seq(items, span, node=node)  # ints, bools, floats: the same order in every process
        if isinstance(node, ast.Set):
            return dynamic(span, m.code(node), Kind.UNORDERED_ITERATION, Volatility.PER_PROCESS,
                           "a set display: iteration order depends on the hash seed")
        return Seq(items, span, is_tuple=isinstance(node, ast.Tuple), node=node)

    def mapping(self, node: ast.Dict, frame, env) -> Value:
        """A dict display. `**other` of a dict set in branches (`if system: base["system"] = ...`)
        gives one dict per variant (an Alt): a key one branch sets stays conditional (a block's
        `cache_control` set only on the last message is not on every message). Each value is
        evaluated once, in the order written."""
        entries = []  # (key or None, value; for a spread of several dicts, their list)
        for key, value in zip(node.keys, node.values):
            if key is None:
                other = self.eval(value, frame, env)
                variants = dict_variants(other) if isinstance(other, Alt) else None
                entries.append((None, variants if variants and len(variants) > 1 else one_dict(other) or other))
            elif isinstance(key, ast.Constant) and isinstance(key.value, str):
                entries.append((key, self.eval(value, frame, env)))
        branched = [v for k, v in entries if k is None and isinstance(v, list)]
        if len(branched) == 1:  # one spread of several dicts: one display per variant
            return Alt([self._display(node, frame, [(k, one if v is branched[0] else v) for k, v in entries])
                        for one in branched[0]], frame.module.span(node))
        return self._display(node, frame, [(k, merged_dict(v) if isinstance(v, list) else v) for k, v in entries])

    @staticmethod
    def _display(node: ast.Dict, frame, entries: list) -> Mapping:
        """The dict of the evaluated entries of a display (a key node and its value; None and the
        value of a `**other`)."""
        m = frame.module
        items: dict[str, Value] = {}
        spans = {}
        merged = opened = False
        for key, value in entries:
            if key is None:  # **other
                if isinstance(value, Mapping):
                    items.update(value.items)
                    spans.update(value.key_spans)
                    opened = opened or value.open or value.repeated  # (a dict filled in a loop: keys not known)
                else:
                    merged = opened = True  # keys of data we cannot see: the order is not the code's
            else:
                items[key.value] = value
                spans[key.value] = m.span(key)
        return Mapping(items, spans, m.span(node), None if merged else node, open=opened)

    def subscript(self, node: ast.Subscript, frame, env) -> Value:
        m = frame.module
        base = self.eval(node.value, frame, env)
        key = self._key(node.slice, frame, env)
        if isinstance(base, Mapping) and isinstance(key, str) and key in base.items:
            return base.items[key]
        if isinstance(key, str) and (read := keyword_read(base, key, None, m.span(node), m.code(node))) is not None:
            return read  # `kwargs["schema"]`: a keyword handed in through `**kwargs`
        if isinstance(base, Alt) and isinstance(key, int):
            # `rows[0]` of `rows = []` or the rows a block built: an empty list has no item, so it is not that one
            kept = [o for o in base.options if not (isinstance(o, Seq) and not o.repeated and not o.items)]
            if 0 < len(kept) < len(base.options):
                base = kept[0] if len(kept) == 1 else replace(base, options=kept)
        if isinstance(key, (str, int)) and (item := self.item_of_variants(base, key, node, frame)) is not None:
            return item
        if isinstance(base, Mapping) and key is None and not isinstance(node.slice, ast.Slice):
            chosen = one_of_table(base)
            if chosen is not None:
                return chosen
        held = held_set(base, key) if not isinstance(node.slice, ast.Slice) else None
        if held is not None:
            return held  # `field_values[f]` of `{f: set() for f in fields}`: one of its sets
        if isinstance(base, Config) and key is not None:
            try:
                sub = base.data[key]
            except (KeyError, IndexError, TypeError):
                return dynamic(m.span(node), m.code(node), Kind.UNKNOWN, Volatility.STABLE, "configuration value")
            return Config(base.path, base.text, [*base.keys, key], sub)
        if isinstance(key, int) and not isinstance(node.slice, ast.Slice) and history_segment(base) is None \
                and (reached := conversation_at(base, key)) is not None:
            # `messages[0]` of `[*self.messages, user]`: a message of the conversation spread there (spread_index.py)
            if reached.unconfirmed:
                return dynamic(m.span(node), m.code(node), Kind.UNKNOWN, Volatility.UNKNOWN,
                               f"an item of `{grown_name(reached)}`, a list its methods add to")
            if reached.older:
                return from_older(m.span(node), m.code(node), reached)
            if key == -1:
                return newest_message(m.span(node), m.code(node), reached)
            return dynamic(m.span(node), m.code(node), Kind.UNKNOWN, Volatility.UNKNOWN,
                           f"an early message of the conversation `{reached.expr}` (often its system message)"
                           if key >= 0 else f"a message of the conversation `{reached.expr}`")
        if isinstance(base, Seq) and isinstance(key, int) and not base.repeated and crossed_spread(base, key) is None:
            try:
                return base.items[key]
            except IndexError:
                pass
        if isinstance(base, Seq) and isinstance(key, int) and base.repeated and base.items \
                and all(not isinstance(i, Spread) and held_order(i) is not None for i in base.items):
            # `rows[0]` of rows appended in a loop over data of unknown length, each built in a set's
            # order (`rows.append({c: r.get(c) for c in columns_set})`): whichever it is, it has that order
            return base.items[0] if len(base.items) == 1 else Alt(list(base.items), m.span(node))
        if isinstance(base, Text) and isinstance(node.slice, ast.Slice) and all(s.is_static for s in base.segs):
            return dynamic(m.span(node), m.code(node), Kind.UNKNOWN, Volatility.STABLE, "a slice of constant text")
        if isinstance(node.slice, ast.Slice):
            cut = self._unordered_slice(base, node, frame)
            if cut is not None:
                return cut
        conversation = history_segment(base)
        if conversation is None and not isinstance(node.slice, ast.Slice) and isinstance(base, Alt) and base.options \
                and all(history_segment(o) is not None for o in base.options):
            # `messages[0]` of the conversation each caller hands in (one per caller): an item of it
            conversation = history_segment(base.options[0])
        if conversation is None and isinstance(node.slice, ast.Slice) and takes_newest(node) | slides(node.slice.lower):
            conversation = named_conversation(base)  # `inputs["messages"][-10:]`: named as the conversation
            base = Text([conversation]) if conversation is not None else base
        if conversation is None and isinstance(node.slice, ast.Slice):
            pieces = self._pieces_cut(base, node, frame)
            if pieces is not None:
                return pieces
            start = self.slice_start(node, frame, env)
            grown = self._grown_cut(base, node, frame, start)
            if grown is not None:
                return self.opt_in_window(grown, node, frame)
            stored = self._stored_cut(base, node, frame, start, env)  # read back from storage, cut there
            if stored is not None:
                return self.opt_in_window(stored, node, frame)
        if conversation is not None and isinstance(node.slice, ast.Slice):
            walked = self.walked_window(node, frame, env)  # `xs[max(0, i - w + 1):i + 1]` as `i` walks xs
            if short_of_end(node.slice.upper) and not takes_newest(node) and not walked:  # without its newest messages (`history[:cut]`)
                base = Text([replace(conversation, older=True)])
            if walked or slides(self.slice_start(node, frame, env)) or takes_newest(node) \
                    or fitted_start(self, node, frame, env):  # its newest messages: a window that moves every turn
                return self.opt_in_window(self.windowed(base, node, frame), node, frame)
            return base  # a part of the conversation is still the replayed conversation
        if conversation is not None and conversation.unconfirmed and not isinstance(node.slice, ast.Slice):
            # `self.candidates[0]`: an item of a list an instance grows, not a message of a conversation
            return dynamic(m.span(node), m.code(node), Kind.UNKNOWN, Volatility.UNKNOWN,
                           f"an item of `{grown_name(conversation)}`, a list its methods add to")
        if conversation is not None and conversation.older and isinstance(key, int):
            return from_older(m.span(node), m.code(node), conversation)  # `older[-1]`: not the newest message
        if conversation is not None and key == -1:
            return newest_message(m.span(node), m.code(node), conversation)
        if conversation is not None and isinstance(key, int) and key >= 0:
            return dynamic(m.span(node), m.code(node), Kind.UNKNOWN, Volatility.UNKNOWN,
                           f"an early message of the conversation `{conversation.expr}` (often its system message)")
        exact = isinstance(base, Seq) and not base.repeated and isinstance(node.slice, ast.Slice) \
            and not _in_loop(frame, node)  # (read once: not cut pass after pass)
        if (part := sublist(base, node, exact)) is not None:  # `docs[:-1]`: some items of the list, as they are
            return part
        return self.derived(base, node, frame, m.code(node), attr=key if isinstance(key, str) else None)

    def _unordered_slice(self, base: Value, node: ast.Subscript, frame) -> Value | None:
        """`xs[:n]` of a list in an order that differs between runs (`list(set(x))`, a list built
        by iterating a set), or None for any other base. The slice takes its items by that order:
        which items, and in what order, differ too. A source not yet placed is placed at the sliced
        expression (`xs`: the fix sorts it before the cut, `sorted(xs)[:n]`)."""
        if isinstance(base, Seq) and base.unordered is not None and not base.ordered:
            return Seq(base.items, frame.module.span(node), repeated=True, node=node, unordered=base.unordered)
        if not isinstance(base, Text):
            return None
        src = most_volatile(base.segs)
        if src is None or src.kind is not Kind.UNORDERED_ITERATION:
            return None
        if src.anchor is not None or src.fix is not None:
            return Text([src])  # already placed where it was iterated
        return Text([self.unordered_at(src, node.value, frame)])

    def _key(self, kv: ast.AST, frame, env):
        """A subscript key known statically: a str, an int (negative too), or None."""
        if isinstance(kv, ast.Constant) and isinstance(kv.value, (str, int)) and not isinstance(kv.value, bool):
            return kv.value
        if isinstance(kv, ast.UnaryOp) and isinstance(kv.op, ast.USub) and isinstance(kv.operand, ast.Constant) \
                and isinstance(kv.operand.value, int):
            return -kv.operand.value
        if isinstance(kv, ast.Slice):
            return None
        kval = self.eval(kv, frame, env)
        if isinstance(kval, Text) and len(kval.segs) == 1 and kval.segs[0].is_static:
            return kval.segs[0].text
        return None

    # ---------------------------------------------------------------- iteration
    def item_of(self, iterable: Value, node, frame, name: str, loop: bool = False) -> Value:
        """One element of `iterable`; `loop`: a `for` statement's (a message of a cut keeps its cut)."""
        m = frame.module
        span = m.span(node)
        if isinstance(iterable, Seq) and iterable.items:
            vals = [i for i in iterable.items if not isinstance(i, Spread)]
            if iterable.ordered and any(isinstance(v, Text) and held_order(v) is not None for v in vals):
                # an element of a sorted listing (`for p in sorted(dirs)`): one value, no order of its own
                return dynamic(span, name, Kind.UNKNOWN, Volatility.STABLE, f"an element of `{m.code(node)}`")
            if vals and (iterable.unordered is not None or (not iterable.repeated and len(vals) == len(iterable.items))):
                return vals[0] if len(vals) == 1 and iterable.unordered is not None else Alt(vals, span)
            if len(vals) == 1 == len(iterable.items) and isinstance(vals[0], Seq) and vals[0].is_tuple:
                return vals[0]  # a list of pairs grown in a loop (`zip(names, rows)`): an element is that pair
            if vals and len(vals) == len(iterable.items) and all(_dicts(v) or _texts_or_objects(v) for v in vals):
                # a list of dicts or texts grown in a loop (`[answer(q, g) for g in groups]`): an
                # element is one of the items it appends
                return Alt(vals, span)
            if len(vals) == len(iterable.items) and all(holds_order(v) for v in vals):
                # `for k, v in out.items()` of a dict filled with sets' texts: an entry holds that order
                return vals[0] if len(vals) == 1 else Alt(vals, span)
        if isinstance(iterable, Alt) and len(iterable.options) > 1 and all(
                isinstance(o, Seq) and o.items and all(isinstance(i, Mapping) for i in o.items) for o in iterable.options):
            # one of several lists of dicts (the list each caller hands in, built in its own loop):
            # an element is one of their dicts, whose items are read by key (the lists' text only
            # says "a dict", which would make an item of it look fixed)
            return Alt([self.item_of(o, node, frame, name, loop) for o in iterable.options], span)
        segs = self.text_of(iterable, frame) if isinstance(iterable, (Text, Alt)) else []
        src = most_volatile(segs)
        if src is not None and src.kind is Kind.UNORDERED_ITERATION:
            return Text([self.unordered_at(src, node, frame)])
        if src is not None and src.kind is Kind.HISTORY and src.older:
            return from_older(span, name, src)
        if src is not None and src.kind is Kind.HISTORY:  # (a message of a cut conversation keeps its cut)
            item = dynamic(span, name, Kind.UNKNOWN, Volatility.UNKNOWN, f"{MESSAGE_OF}{src.expr}`")
            return Text([replace(item.segs[0], window=src.window, window_stop=src.window_stop)]) if src.window and loop else item
        if src is not None and src.volatility is not Volatility.STABLE:
            return Text([replace(src, span=span, expr=name, origin=src.origin or src.span, anchor=None,
                                 kind=src.kind if src.kind in (Kind.USER_INPUT, Kind.TIMESTAMP, Kind.UNIQUE_ID) else Kind.UNKNOWN)])
        if isinstance(iterable, Mapping):
            return dynamic(span, name, Kind.UNKNOWN, Volatility.STABLE, "a key of a dict display")
        if segs and all(s.is_static or s.volatility is Volatility.STABLE for s in segs) or \
                (isinstance(iterable, Seq) and iterable.ordered):
            return dynamic(span, name, Kind.UNKNOWN, Volatility.STABLE, f"an element of `{m.code(node)}`")
        return dynamic(span, name, evidence=f"an element of `{m.code(node)}`")

    def unordered_at(self, src: Segment, iter_node, frame) -> Segment:
        """The segment for iterating an unordered source at `iter_node`, anchored there for the
        safe fix that wraps the iterable in `sorted(...)` (PRM202). An order made random on purpose
        on every call (`random.shuffle`, per-request) stays where it is made: sorting would undo it."""
        if src.volatility is Volatility.PER_REQUEST:
            return src
        m = frame.module
        span = m.span(iter_node)
        origin = src.origin or src.span
        detail = (("source", src.evidence),)
        if src.evidence == MCP_LISTING:  # MCP `Tool` objects have no `<`: sorted by their name
            detail += (("key", "lambda tool: tool.name"),)
        elif src.evidence == WALK_LISTS:  # os.walk's lists of names: str
            detail += (("items", "str"),)
        return replace(src, span=span, expr=m.code(iter_node), origin=None if origin == span else origin,
                       anchor=Anchor(span, "iterable", detail, m.digest), fix=None)

    def comprehension(self, node, frame, env) -> Value:
        """A list / generator / dict comprehension: one element (or entry) per iteration, in the
        order of its source; a set comprehension has no order (unless its elements hash without
        the hash seed, `hashing.seed_free_set`: then it is read as a list). An unordered raw source (a set,
        a listing) is reported where it is iterated; a container already built in an unordered
        order keeps the segment of the iteration that made it so (the root cause, Policy 8)."""
        m = frame.module
        span = m.span(node)
        if isinstance(node, ast.SetComp) and not seed_free_set(node):
            return dynamic(span, m.code(node), Kind.UNORDERED_ITERATION, Volatility.PER_PROCESS,
                           "a set comprehension: iteration order depends on the hash seed")
        inner_env = dict(env) if env is not None else dict(self.env_at(frame, node))
        order = None
        for number, comp in enumerate(node.generators):
            counted = enumerated(comp)  # `for i, x in enumerate(xs)`: a counter, then an element of xs
            source = counted if counted is not None else comp.iter
            it = self.eval(source, frame, inner_env)
            if number == 0 and counted is None:
                mapped = self.mapped_comprehension(node, frame, inner_env, it)
                if mapped is not None:
                    return mapped
                if _kept_or_rebuilt(node, comp) and history_segment(it) is not None:
                    # `[Msg(role=m["role"], content=m["content"]) if m["role"] == "assistant" else m
                    # for m in messages]`: each message kept, or rebuilt from its own fields
                    return it
                if window_of(it) is not None and (message_of_item(node, comp) or one_for_one(node, comp)):
                    # `[{"role": m["role"], "content": m["content"]} for m in history[-3:]]`: each
                    # message of a cut conversation rebuilt from its own fields: a list of the cut
                    return Seq([Spread(it, m.span(comp.iter), m.code(comp.iter))], span, repeated=True, node=node)
                if flattens(node) and history_segment(it) is not None:
                    # `[m for run in kept_runs for m in run]`: the conversation grouped in runs, flat again
                    return it
                if renders_each(node, comp) and (held := history_segment(Text(self.text_of(it, frame)))) is not None:
                    # `[str(m) for m in messages]`: each message written as text (joined: the history)
                    return Seq([Text([held])], span, repeated=True, node=node)
                if selects_items(node, comp) and history_segment(it) is not None:
                    # `[m for m in messages if m.role != "system"]`: messages of the conversation;
                    # `[m for m in log if id(m) in kept]`: those a cut of it kept, where `kept` is made of one
                    return self._kept_by(comp, frame, inner_env) or it
            if order is None:
                order = self._order_of(it, source, frame)
            if counted is not None:
                counter, name = comp.target.elts
                inner_env[counter.id] = Thunk("counter", node=counter, name=counter.id)
                inner_env[name.id] = Thunk("value", value=self.item_of(it, source, frame, name.id))
                continue
            item = self.item_of(it, comp.iter, frame, m.code(comp.target))
            names = target_names(comp.target)
            # `for q, doc in zip(questions, docs)`: each name an item of its argument (builtin_calls)
            zipped = [zip_member(self, comp.iter, target_position(comp.target, i), frame, inner_env, tname)
                      for i, tname in enumerate(names)]
            for i, tname in enumerate(names):
                inner_env[tname] = Thunk("value", value=entry_part(item, comp.target, i) if zipped[i] is None else zipped[i])
        if isinstance(node, ast.DictComp):
            value = self.eval(node.value, frame, inner_env)
            return Mapping({}, span=span, node=None, repeated=True, value=value, unordered=order)
        elt = self.eval(node.elt, frame, inner_env)
        seq = Seq([elt], span, repeated=True, node=node, unordered=order)
        apart = comp_apart(node, env_resolver(inner_env))  # `[m.short() if i < len(ms) - k else m.full() ...]`
        return marked(seq, apart, m) if apart is not None else seq

    def _order_of(self, it: Value, iter_node, frame) -> Segment | None:
        """The unordered-iteration segment that makes iterating `it` unstable, or None."""
        if isinstance(it, (Seq, Mapping)) and it.unordered is not None and not getattr(it, "ordered", False):
            return it.unordered
        if isinstance(it, Alt):  # one of several lists: the one built in an unstable order
            found = next((o.unordered for o in it.options if isinstance(o, (Seq, Mapping)) and o.unordered is not None
                          and not getattr(o, "ordered", False)), None)
            if found is not None:
                return found
        segs = self.text_of(it, frame) if isinstance(it, (Text, Alt)) else []
        src = most_volatile(segs)
        if src is not None and src.kind is Kind.UNORDERED_ITERATION:
            if src.anchor is not None and src.span != self.module_span(frame, iter_node):
                return src  # already reported where it was iterated
            if isinstance(it, Alt):  # what each caller passes: every one that made the set a list
                src = replace(src, listed=_listed_by_options(self, it, frame, src))
            return self.unordered_at(src, iter_node, frame)
        return None

    @staticmethod
    def module_span(frame, node):
        return frame.module.span(node)

def _listed_by_options(ev, alt: Alt, frame, src: Segment) -> tuple:
    """The places where the options of `alt` (what each caller passes for one parameter) made
    `src`'s source a list (`Segment.listed`), each once in the order read: the same set (the same
    origin) made a list by several callers."""
    out = list(src.listed)
    for option in alt.options[:16]:
        for s in ev.text_of(option, frame) if isinstance(option, (Text, Alt)) else ():
            if s.kind is Kind.UNORDERED_ITERATION and (s.origin or s.span) == (src.origin or src.span):
                out.extend(p for p in s.listed if p not in out)
    return tuple(out)


def _texts_or_objects(value) -> bool:
    """A text or an instance, or one of several of them (a helper that returns a record in each
    branch)."""
    return isinstance(value, (Text, Obj)) or isinstance(value, Alt) and all(_texts_or_objects(o) for o in value.options)


def _dicts(value) -> bool:
    """A dict, or one of several dicts."""
    return isinstance(value, Mapping) or isinstance(value, Alt) and all(_dicts(o) for o in value.options)


def newest_message(span, expr: str, conversation: Segment) -> Mapping:
    """`messages[-1]` of a conversation: the newest user message, new on every request."""
    content = dynamic(span, expr, Kind.USER_INPUT, Volatility.PER_REQUEST,
                      f"the newest message of the conversation `{conversation.expr}`", origin=conversation.span)
    return Mapping({"role": Text([Segment(text="user", span=span)]), "content": content}, span=span)


def one_of_table(table: Mapping) -> Value | None:
    """A value picked from a table of texts by a key not known statically (`PROMPTS[lang]`,
    `TEMPLATES[mode]`: one text per language or mode): one of its texts. None for a dict built in
    a loop (its keys are not known), one holding other values than text, or a large one."""
    values = list(table.items.values())
    if table.repeated or not values or len(values) > MAX_VARIANTS or not all(isinstance(v, Text) for v in values):
        return None
    return values[0] if len(values) == 1 else Alt(values, table.span)


def _kept_or_rebuilt(node, comp) -> bool:
    """True for a comprehension of one plain `for` (no filter) whose element is a conditional
    expression with the item itself as one branch (`X if cond else m`, `m if cond else X`): each
    item of the source is kept, or replaced by what the other branch makes of it."""
    elt = getattr(node, "elt", None)
    if not (isinstance(elt, ast.IfExp) and isinstance(comp.target, ast.Name) and not comp.ifs):
        return False
    name = comp.target.id
    return any(isinstance(b, ast.Name) and b.id == name for b in (elt.body, elt.orelse))



def _in_loop(frame, node) -> bool:
    """True when `node` sits in a loop of the function of `frame` (of the module at its top level)."""
    scope = frame.func if frame.func is not None else frame.module.tree
    return any(isinstance(loop, (ast.For, ast.AsyncFor, ast.While)) and any(n is node for n in subtree(loop))
               for loop in subtree(scope))
