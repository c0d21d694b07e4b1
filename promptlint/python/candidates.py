"""Prompt candidates: places that build prompt text outside a recognised send call
(docs/policies.md, Policy 9). Each becomes a `python-constant` layout judged on its own text; a candidate whose text
reaches a send site of the analysed tree is superseded there (engine: the send site knows the
request around it).

- module-level and class-level prompt constants: f-strings, `.format` / `%` / `+` of text, and
  string templates with `{placeholder}` fields filled by `.format(...)` elsewhere;
- attributes assigned prompt text in a method (`self.instructions = f"..."`);
- functions and methods that return prompt text or a message list (`build_system_prompt(self)`);
- a template filled, or text built, in an argument of a call no send shape matches, when the
  template's or the keyword's name says prompt (`llm.ask(system=f"...", prompt=text)`);
- a conversation cut to its newest messages (or with messages of its middle removed) in a helper
  that returns it or keeps it on its instance (`return messages[-20:]`): one history part, judged
  by PRM105 where it is cut.

What makes text a prompt is its evidence: a word of its name (prompt, system, instruction, ...)
or a message list with roles; short texts (log lines, error messages) are not candidates, and long
texts with placeholders named otherwise are not either (HTML, unit files, code templates).
"""
from __future__ import annotations

import ast
import re
from ..model import replace

from ..classify import MCP_LISTING
from ..model import Kind, Part, Segment
from .module import callee_name
from .flow.bound_lists import grown_or_empty
from .flow.core import per_process
from .flow.fill_methods import fills
from .flow.chosen_texts import with_variant_values
from .flow.turn_text import history_behind
from .flow.values import Seq, Text
from .instance_calls import never_a_list
from .layout_values import as_prompt_text
from .handoff import conversation_after, grown_read, handed_on, system_keyword_calls
from .message_candidates import (builds_messages, copied_read, has_messages, message_list, options_of, placed_first,  # noqa: F401
                                 static_chars)
from .prompt_names import prompt_named, role_of, tools_named, words
from .return_types import never_prompt, never_tools
from .sorted_returns import sorted_by_callers
from .dollar_templates import read_as_dollar, template_text
from .text_shapes import builds_text, filled_template, is_template, jinja_literal, wrapped_argument
from .walk import child_nodes, subtree

MIN_STATIC_CHARS = 200  # characters of static text a candidate needs (a sentence or two, not a log line)


def _names_only(node) -> bool:
    """A comprehension that keeps only each item's name (`[tool.name for tool in listed.tools]`,
    `[t["name"] for t in tools]`): tool names, not the definitions a request sends."""
    if not isinstance(node, (ast.ListComp, ast.GeneratorExp)):
        return False
    elt = node.elt
    return (isinstance(elt, ast.Attribute) and elt.attr == "name") or (
        isinstance(elt, ast.Subscript) and isinstance(elt.slice, ast.Constant) and elt.slice.value == "name")


def _names_kept(func, node) -> bool:
    """A name every assignment of which in `func` keeps only the tools' names (`_names_only`)."""
    if not isinstance(node, ast.Name):
        return False
    values = [a.value for a in subtree(func) if isinstance(a, ast.Assign)
              and any(isinstance(t, ast.Name) and t.id == node.id for t in a.targets)]
    return bool(values) and all(_names_only(v) for v in values)


def tools_layout(finder, node, value, span, own: bool = False, names: bool = False, sorted_after=None) -> bool:
    """A tools list (or registry) built in an unstable order, or holding an id or a time in a
    tool's name or description (`Tool(name=f"finish_{self.id}")`), outside a send call: a
    candidate with one tools part, reported where the order is lost (PRM203) or where the value
    enters the tool (PRM102, PRM103). `own`: the order must be lost in the expression at `span`
    itself (a local list's comprehension iterating a set), not by a loop around it whose items
    the analysis may have mistaken. `names`: the list keeps only the tools' names, so an MCP
    server's listing does not by itself prove it is a request's tools. `sorted_after`: a callable
    that says whether whoever receives the list sorts it (every caller of the function returning
    it: python/sorted_returns.py), asked only when the list is built in an unstable order; then
    that order is no finding. True when one was added."""
    from .layout_values import variants_of
    from .tool_defs import find_stamped
    from .tool_values import find_unordered, listed_order
    unordered = listed_order(finder.ev, node, value, finder.frame())
    if unordered is None and all(isinstance(v, Text) for v in variants_of(value)):
        return False  # text: what a tool returns (`def handoff_task_tool(...) -> str`), not a tool list
    unordered = unordered or find_unordered(value)
    if unordered is not None and own and unordered.anchor is not None and not span_within(unordered.anchor.span, span):
        unordered = None
    if unordered is not None and sorted_after is not None and sorted_after():
        unordered = None  # the receivers sort it: the order it is built in is not the order sent
    if unordered is None or unordered.anchor is None:
        # an unordered value never iterated into a list (a set for membership tests) is no order
        unordered = find_stamped(value)
        if unordered is None:
            return False
    if names and unordered.evidence == MCP_LISTING:
        unordered = replace(unordered, evidence=f"{MCP_LISTING}, the tools' names only")
    finder.b.add(node, "python-constant", None, None, None, [Part("tools", [unordered], span=span)])
    return True


def span_within(inner, outer) -> bool:
    """True when span `inner` lies within span `outer` (same file)."""
    return (inner is not None and outer is not None and inner.filename == outer.filename
            and (inner.start.row, inner.start.column) >= (outer.start.row, outer.start.column)
            and (inner.end.row, inner.end.column) <= (outer.end.row, outer.end.column))


def _assigned_name(node) -> str | None:
    """The name (or attribute) an assignment binds, when it binds one."""
    target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else getattr(node, "target", None)
    return target.id if isinstance(target, ast.Name) else target.attr if isinstance(target, ast.Attribute) else None


def text_layout(finder, node, segs: list[Segment], span, role: str = "system", least: int = MIN_STATIC_CHARS):
    """Record a standalone candidate: one part (of `role`) holding the text, when it has both
    static text (`least` characters; none before a conversation it holds) and content that can change.
    Returns the layout added, else None."""
    segs = as_prompt_text(segs)  # (a list an instance grows, written into the text: no conversation)
    if static_chars(segs) < (0 if history_behind(segs) else least) or all(s.is_static for s in segs):
        return None
    if not any(not s.is_static and s.kind is not Kind.HISTORY for s in segs):
        return None
    if _MARKUP_PAGE.match(next((s.text for s in segs if s.is_static and s.text.strip()), "")):
        return None  # a web page or its style sheet (`renderer.style + render_tape(...)`), not prompt text
    if _CHAT_TEMPLATE.search("".join(s.text for s in segs if s.is_static)):
        return None  # the source of a tokenizer's chat template (`_generate_system_prompt_handling`), not prompt text
    return finder.b.add(node, "python-constant", None, None, None, [Part(role, segs, span=span)])


#: The start of an HTML page or of its style or script block: text a function named for prompts
#: may well return (`render_tape_with_prompts`), which no model is sent.
_MARKUP_PAGE = re.compile(r"\s*<(?:!doctype\b|html\b|head\b|body\b|style\b|script\b)", re.IGNORECASE)
#: A Jinja statement that branches on a message being the system message (`{%- if messages[0]['role']
#: != 'system' %}`, `{%- elif message.role == 'system' %}`): the source of a chat template, which formats
#: every message of a conversation for a tokenizer (mistral-common's template generator), not text a
#: model is sent; a prompt that writes the conversation into its text has no system message to single out.
_CHAT_TEMPLATE = re.compile(r"\{%-?[^%]*(?:\[\s*['\"]role['\"]\s*\]|\.role)\s*[!=]=\s*['\"]system['\"]")


def constant(finder, node, name: str, value_node, frame, module_level: bool) -> None:
    """A prompt constant at module or class level (`SYSTEM_PROMPT = f"..."`, a template), or a
    tools list built there."""
    if tools_named(name) and (tools_layout(finder, node, finder.ev.eval(value_node, frame), finder.m.span(value_node))
                              or not prompt_named(name)):
        return
    if prompt_named(name):
        written(finder, node, role_of(name), value_node, frame, module_level)


def written(finder, node, role: str, value_node, frame, module_level: bool, templates_only: bool = False,
            dollar: bool | None = None) -> None:
    """The candidate of prompt text written in `value_node` (a constant's value: an f-string, a
    `.format` / `+` of text, a `{placeholder}` or `$name` template, a Jinja literal; only templates
    when `templates_only`), one part of `role`; `dollar`: a `$name` template (None: read here)."""
    template = is_template(value_node) or is_template(wrapped_argument(value_node))
    jinja = jinja_literal(value_node) or jinja_literal(wrapped_argument(value_node))
    # `$name` fields a module fills with string.Template (python/dollar_templates.py; `dollar`: known)
    dollar = dollar or dollar is None and (jinja or not template) and read_as_dollar(finder, value_node, _assigned_name(node))
    jinja = jinja and not dollar
    template = template and not jinja and not dollar
    if not (template or jinja or dollar or not templates_only and builds_text(value_node)):
        return
    value = finder.ev.eval(value_node, frame)
    if module_level:
        value = per_process(value)  # evaluated once, at import
    if dollar and isinstance(value, Text):
        value = finder.ev.dollar_text(value, {}, frame, keep_unbound=True)
    elif template and isinstance(value, Text):
        value = template_text(finder, value, frame, _assigned_name(node))
    segs = finder.ev.text_of(value, frame)
    if jinja:
        from .inline_jinja import jinja_text
        segs = jinja_text(segs)  # its `{{ placeholders }}`, `{% if %}` sections and loops, filled per render
    if module_level and (template or jinja or dollar) and (name := _assigned_name(node)) is not None:
        from .configured_templates import configured_keys, fixed_by_configuration
        segs = fixed_by_configuration(segs, configured_keys(finder.m, name), finder.m)  # kept beside its values
    text_layout(finder, node, segs, finder.m.span(value_node), role)


def local(finder, node, name: str, value_node, frame) -> None:
    """A prompt built in a function and kept in a local name (`system_prompt = TEMPLATE.format(...)`):
    a candidate of its own when it reaches no send site the analysis follows (a wrapper with many
    callers, an SDK it does not know); superseded where it does. A system prompt that the function
    hands on with the conversation (`build_messages(query, system_prompt, chat_history)`) has the
    history after it (python/handoff.py), and so has one returned by a call (`system_prompt = await
    enhancer.enhance(system_prompt, message)`) and handed on so; their text needs only some static
    text: the name and the conversation beside it say it is a system prompt. A message list kept in
    a local name is recorded as one (`message_list`). Text kept in a name that does not say prompt
    is one when it fills a template whose name does (`task_description =
    TASK_PROMPT_TEMPLATE.format(objective=..., task=...)`): the template's name says what it is.
    A tools list kept in a local name (`tools = [spec(f) for f in self.usable]`, returned or
    handed to a call) is a tools candidate (`tools_layout`): reported when built in an unstable
    order or with an id in a tool."""
    if tools_named(name) and not prompt_named(name):
        if _text_only(value_node):
            return  # text, never a tools list (`tool_name = ":".join(...)`): not read in case it is one
        value = speculative(finder, value_node, frame)
        if value is not None:
            tools_layout(finder, node, value, finder.m.span(value_node), own=True, names=_names_only(value_node))
        return
    if builds_messages(value_node):
        # with what loops copy onto it before it is handed on (`for m in messages: out.append(...)`)
        read = copied_read(frame.func, node, name)
        message_list(finder, node, finder.ev.eval(read or value_node, frame), frame)
        return
    if isinstance(value_node, ast.List) and not value_node.elts and prompt_named(name, functions=True):
        # `prompts = []`, then `prompts.append(make_prompt("system", ...))` and more, handed on whole
        read = copied_read(frame.func, node, name)
        if read is not None:
            message_list(finder, node, finder.ev.eval(read, frame), frame)
        return
    template = filled_template(value_node, finder.m)
    if template is not None and not prompt_named(name):
        name = template  # judged as the template it fills
    if not prompt_named(name) or _only_hashed(frame.func, name):
        return
    system = role_of(name) == "system"
    # `sys_prompt` handed to a callback by `system_prompt=`, which the package's own send
    # functions put in the system part (handoff.system_keyword_calls): those calls hand it on
    via = [] if system else system_keyword_calls(finder, frame.func, node, name)
    # `final_prompt = critique_prompt + conversation_text`: parts of a prompt joined (the name says prompt)
    built = builds_text(value_node) or isinstance(value_node, ast.BinOp) and isinstance(value_node.op, ast.Add)
    if not built and not (system and handed_on(frame.func, node, name)):
        return
    value = finder.ev.eval(grown_read(frame.func, node, name) or value_node, frame)  # with what `+=` adds
    segs = _richest(finder, value, frame)
    history = conversation_after(finder, node, name, segs, frame, calls=via or system) if system or built else None
    if not built and history is None:
        return
    # (the conversation written into the text, `"\n".join(str(m) for m in history)`, is what is
    # re-sent after what changes before it: it needs no static text of its own either)
    inside = any(s.kind is Kind.HISTORY and not s.unconfirmed for s in segs)
    layout = text_layout(finder, node, segs, finder.m.span(value_node), "system" if history else role_of(name),
                         MIN_STATIC_CHARS if history is None and not inside else 1)
    if layout is not None and history is not None:
        layout.parts.append(Part("history", [history], span=history.span))


def filled_argument(finder, call: ast.Call, frame) -> None:
    """A template filled in an argument of a call no send shape matches (`await
    model_func(query, sys_prompt_template.format(report_data=points))`, `llm(PROMPT.format(...))`),
    or text built in an argument passed by a keyword that says prompt (`prompt_keyword`):
    a candidate of its own, judged on its text as the same text kept in a local name is (`local`);
    the template's or the keyword's name says it is prompt text. A message list written into an argument
    (`wrapper.create(messages=[{"role": "user", "content": PROMPT.format(...)}])`) is one as the
    same list kept in a local name is (`message_list`)."""
    for arg in [*call.args, *(k.value for k in call.keywords)]:
        if builds_messages(arg):
            message_list(finder, arg, finder.ev.eval(arg, frame), frame)
            continue
        name = filled_template(arg) or prompt_keyword(call, arg) or _filled_keyword(finder, call, arg, frame)
        if name is None or _only_hashed(frame.func, name):
            continue
        segs = _richest(finder, finder.ev.eval(arg, frame), frame)
        text_layout(finder, arg, segs, finder.m.span(arg), role_of(name))


def _filled_keyword(finder, call: ast.Call, arg, frame) -> str | None:
    """The name of the keyword that passes `arg` when it says prompt text and `arg` fills a
    template through a template class's fill method (`system_prompt=PromptTemplate.from_string(T)
    .generate_prompt({"QUERY": query})`, flow/fill_methods.py): the template filled there."""
    name = method_filled(call, arg)
    return name if name is not None and fills(finder.ev, arg, frame) else None


def method_filled(call: ast.Call, arg) -> str | None:
    """The name of the keyword that passes `arg` when it says prompt text and `arg` calls a
    method with arguments (`.generate_prompt({...})`): a fill call, maybe (`_filled_keyword`)."""
    k = next((k for k in call.keywords if k.value is arg), None)
    if k is None or k.arg is None or not prompt_named(k.arg) or not isinstance(arg, ast.Call) \
            or not isinstance(arg.func, ast.Attribute) or not (arg.args or arg.keywords):
        return None
    return k.arg


def prompt_keyword(call: ast.Call, arg) -> str | None:
    """The name of the keyword that passes `arg` when it says prompt text and `arg` builds text
    in place (`query_llm(system=f"...{user_name}...", prompt=summary)`, also one branch of a
    conditional expression): the same text kept in a local name of that name is a candidate
    (`local`); else None."""
    for k in call.keywords:
        if k.value is arg and k.arg is not None and prompt_named(k.arg):
            node = arg.body if isinstance(arg, ast.IfExp) and not builds_text(arg) else arg
            return k.arg if builds_text(node) else None
    return None


def _richest(finder, value, frame) -> list[Segment]:
    """The text of `value`; of one of several texts whose shared part is too short to judge
    (`(custom or PROMPTS["answer"]).format(...)`: an override we cannot read, or the default), the
    variant with the most static text."""
    segs = finder.ev.text_of(value, frame)
    if static_chars(segs) >= MIN_STATIC_CHARS:
        return segs
    options = [finder.ev.text_of(o, frame) for o in options_of(value)]
    # (the others' stable values kept: each template filled so is judged here, not alone)
    return with_variant_values(max(options, key=static_chars), options) if len(options) > 1 else segs


_HASHING = re.compile(r"hash|digest|fingerprint|md5|sha\d|cache", re.IGNORECASE)


def _only_hashed(func, name: str) -> bool:
    """True when every read of the local `name` in `func` is an argument of a call that hashes it
    or hands it to an application's own response cache (`compute_args_hash(_prompt)`,
    `save_to_cache(CacheData(prompt=_prompt))`): text built to look a response up, never sent."""
    if func is None:
        return False
    reads, hashed = set(), set()
    for node in subtree(func):
        if isinstance(node, ast.Call):
            if _HASHING.search(callee_name(node)):
                hashed.update(id(n) for a in [*node.args, *(k.value for k in node.keywords)] for n in subtree(a)
                              if isinstance(n, ast.Name) and n.id == name)
        elif isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
            reads.add(id(node))
    return bool(reads) and reads <= hashed


def attribute(finder, node: ast.Assign, frame) -> None:
    """`self.<prompt name> = <text>` in a method: prompt text kept on the instance; a tools list
    kept on any object (`self.tools = ...`, `config_copy.rag_tools = list(set(names))`)."""
    target = node.targets[0] if len(node.targets) == 1 else None
    if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)):
        return
    if target.value.id != "self":
        if tools_named(target.attr) and not prompt_named(target.attr):
            tools_layout(finder, node, finder.ev.eval(node.value, frame), finder.m.span(node.value), own=True)
        return
    if tools_named(target.attr) and (tools_layout(finder, node, finder.ev.eval(node.value, frame), finder.m.span(node.value))
                                     or not prompt_named(target.attr)):
        return
    if not prompt_named(target.attr) or not (builds_text(node.value) or is_template(node.value)):
        return
    value = finder.ev.eval(node.value, frame)
    if is_template(node.value) and isinstance(value, Text):
        value = template_text(finder, value, frame, target.attr)
    text_layout(finder, node, finder.ev.text_of(value, frame), finder.m.span(node.value), role_of(target.attr))


def returned(finder, node: ast.Return, func, frame) -> bool:
    """A function returning prompt text or a message list. Returns True when a layout was added."""
    value_node = node.value
    if tools_named(func.name):
        # a tools list; a name that also says prompt (`tool_selection_prompt`) may return prompt text.
        # Text (`_text_only`, or a function annotated to return only text and scalars) is no tools
        # list: not read in case it is one
        text = _text_only(value_node) or never_tools(finder, func) and not _listed(value_node)
        value = None if text else speculative(finder, value_node, frame)
        if value is not None and tools_layout(finder, node, value, finder.m.span(value_node),
                                              names=_names_only(value_node) or _names_kept(func, value_node),
                                              sorted_after=lambda: sorted_by_callers(finder.ev, finder.m, func)):
            return True
        if not prompt_named(func.name, functions=True):  # (`augment_messages_for_tools`: a message list)
            return False
        finder.ev.reset_budget()
    named = prompt_named(func.name, functions=True) or _in_prompt_class(finder, func)
    if never_prompt(finder, func, named, role_of(func.name)):
        return False  # annotated to return no prompt text and no message list (return_types.py)
    if not (named or builds_messages(value_node) or builds_text(value_node) or finder.writes_system(func)):
        return False
    if not named and _text_only(value_node):
        return False  # text (never a message list), from a function not named for a prompt
    if grown_or_empty(finder.ev, frame, value_node) and not finder.reads_cut(func, value_node):
        # a name bound only to lists grown in a loop or empty: no message list of known length, no
        # text, no system message; known from its bindings before its items are read
        return False
    if not named:
        finder.ev.reset_budget(speculative=True)  # (as `speculative` does: the callee is read on a budget of its own)
        if never_a_list(finder, value_node, frame):
            return False  # (a constant, a comparison or an instance of a class: no message list to read)
    # (of a function not named for prompts only a message list is a candidate: read in case it is one)
    value = finder.ev.eval(value_node, frame) if named else speculative(finder, value_node, frame)
    if value is None:
        return False
    for option in options_of(value):
        if isinstance(option, Seq) and option.is_tuple and isinstance(value_node, ast.Tuple):
            # `return messages, original_prompt`: the message list returned with other values
            option = next((m for item in option.items for m in options_of(item)
                           if isinstance(m, Seq) and not m.repeated and has_messages(m)), option)
        if isinstance(option, Seq) and not option.repeated and has_messages(option):
            if message_list(finder, node, option, frame):
                return True
        elif isinstance(option, Text) and named:
            before = len(finder.b.layouts)
            text_layout(finder, node, option.segs, finder.m.span(value_node), role_of(func.name))
            if len(finder.b.layouts) > before:
                return True
        elif named and role_of(func.name) == "system":
            from .system_returns import history_after, system_content
            content = system_content(finder, option, frame)
            if content is None:
                continue
            history = history_after(finder, func)
            layout = text_layout(finder, node, finder.ev.text_of(content, frame), finder.m.span(value_node), "system",
                                 MIN_STATIC_CHARS if history is None else 1)
            if layout is not None:
                if history is not None:
                    layout.parts.append(Part("history", [history], span=history.span))
                return True
    return False


def _text_only(node) -> bool:
    """True for an expression that is text whatever its operands are, never a message list: an
    f-string, a str method of a string literal (`"\\n".join(lines)`, `"...".format(x)`), `"..." % x`,
    a method whose result is text whatever it is called on (`sep.join(lines)`, `textwrap.dedent(s)`,
    `string.Template(t).substitute(...)`; not `format`: DSPy's adapters `format` a message list)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        node = node.left
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr in _TEXT_ONLY_METHODS:
            return True
        if node.func.attr in _STR_METHODS:
            node = node.func.value
    return isinstance(node, ast.JoinedStr) or isinstance(node, ast.Constant) and isinstance(node.value, str)


def _listed(node) -> bool:
    """`list(xs)` / `tuple(xs)`: the text of an unordered `xs` iterated into a list
    (tool_values.listed_order), a tools list whatever the function's annotation says."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("list", "tuple")


_STR_METHODS = {"join", "format", "format_map", "strip", "replace"}
#: Methods whose result is text (or a path) whatever object has them: `str.join`, `os.path.join`,
#: `str.format_map`, `textwrap.dedent`, string.Template's `substitute`.
_TEXT_ONLY_METHODS = {"format_map", "join", "dedent", "substitute", "safe_substitute"}


def speculative(finder, value_node, frame):
    """The value of `value_node` read within the speculative budget (`reset_budget(speculative=True)`),
    or None when that ran out: a candidate read only in case it is one is then dropped."""
    finder.ev.reset_budget(speculative=True)
    value = finder.ev.eval(value_node, frame)
    return None if finder.ev.budget.exhausted else value


def generated(finder, func, frame) -> bool:
    """A generator function named for prompt text that yields messages (`def prompt_full(...)`:
    `yield from prompt_gptme()`, `yield Message("system", ...)`): the list it yields, read as a
    message list returned. The layout's site is its first `yield`. True when a layout was added."""
    from .flow.scopes import YIELDED
    if not prompt_named(func.name, functions=True) or tools_named(func.name):
        return False
    first = _first_yield(func)
    th = finder.ev.env_at(frame, None).get(YIELDED) if first is not None else None
    if th is None:
        return False
    value = finder.ev.force(frame, th)
    return any(message_list(finder, first, option, frame) for option in options_of(value))


def _first_yield(func):
    """The first `yield` / `yield from` of `func`'s own body, in source order (None: not a generator)."""
    found, todo = [], list(func.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            found.append(node)
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            todo.extend(child_nodes(node))
    return min(found, key=lambda n: (n.lineno, n.col_offset), default=None)


_CLASS_WORDS = {"prompt", "prompts"}
_TEMPLATE_NAME = re.compile(r"(?:Template|_template)s?$")  # `JudgeTemplate`, `COPROTemplate`, `judge_templates`


def _in_prompt_class(finder, func) -> bool:
    """True for a method (not a dunder) of a class whose name says it holds prompts (`class
    PromptFamily`, `class Prompts`): each of its methods that returns text builds a prompt
    (`PromptFamily.curate_sources(query, sources)`), whatever the method is called. So is a
    class named for templates that is only a namespace of text builders (`class JudgeTemplate:`
    whose methods are all static or class methods, `JudgeTemplate.generate_verdicts(claims)`);
    a template class with instances (a template engine's own `Template`) is not."""
    if func.name.startswith("__") or func not in finder.stack:
        return False
    at = finder.stack.index(func)
    cls = finder.stack[at - 1] if at > 0 else None
    if not isinstance(cls, ast.ClassDef):
        return False
    return bool(words(cls.name) & _CLASS_WORDS) or _TEMPLATE_NAME.search(cls.name) is not None and _builders_only(cls)


def _builders_only(cls: ast.ClassDef) -> bool:
    """True for a class whose methods, one at least, are all static or class methods (no
    instance state) and whose base classes, if any, are named for templates too (`class
    MultimodalJudgeTemplate(JudgeTemplate)`): a namespace of functions."""
    methods = [n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    bases = [b.attr if isinstance(b, ast.Attribute) else b.id if isinstance(b, ast.Name) else "" for b in cls.bases]
    return all(_TEMPLATE_NAME.search(b) for b in bases) and bool(methods) and all(
        any(isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod") for d in m.decorator_list)
        for m in methods)
