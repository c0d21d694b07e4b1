"""Finds where a module sends or builds a prompt and builds each one's PromptLayout.

Recognised: the call shapes of every SDK of the registry (python/sdks/), functions whose
decorator makes their return value a prompt (`@agent.system_prompt`), module-level prompt
constants built with f-strings or `.format`, system messages written as dicts outside a
recognised call, and functions returning a message list with a system message before the
history. The walk is iterative (pre-order, outer nodes first), so deep code cannot exhaust the
stack; each prompt has its own work budget.
"""
from __future__ import annotations

import ast
import re

from . import (built_prompts, candidates, class_templates, concurrent_fills, drawn_heads, handed_heads, handoff, history_cuts, kept_conversations, kept_text,
               kept_turns, module_facts, prompt_modules, request_bodies, request_dicts, schema_orders, sdks, section_dicts,
               step_requests, subclass_sends, system_edits, template_calls, template_objects, tool_loops, tool_results)
from .candidates import builds_messages, filled_argument, method_filled, prompt_keyword
from .prompt_names import prompt_named
from .text_shapes import builds_text, filled_template
from .message_candidates import appended_then_copied
from .answered_records import in_answered_record
from .flow.objects import decorator_name
from .flow import rewrites
from .flow.relays import relayed_call
from .flow.store_reads import method_class, reads_stored_messages
from .picked import aliased_calls, may_alias, method_aliases, picked_calls
from .flow.binding_syntax import is_generator
from .layout import LayoutBuilder
from .gated_values import note_gates
from .request_facts import note_request
from .text_gates import holds_any
from .walk import children, own_nodes

#: Roots of the names of a conversation (classify.HISTORY_NAMES, candidates.CONVERSATION_WORDS)
#: and of its messages' roles, in any case.
_CONVERSATION_ROOTS = re.compile(r"(?i:messag|msg|histor|conversation|chat|dialog|transcript|(?<!re)turn|role)")

# a system message written in the code: a function building one may return a prompt
_SYSTEM_MESSAGE = re.compile(r"""(["']role["']\s*:\s*["'](system|developer)["'])|(role\s*=\s*["'](system|developer)["'])"""
                             r"|SystemMessage\(|MessageRole\.SYSTEM|\(\s*[\"']system[\"']\s*,")
#: One of these is in every match of `_SYSTEM_MESSAGE`: looked for first (a plain search is
#: several times faster than the pattern, which has no literal start).
_SYSTEM_WORDS = ("role", "system", "SystemMessage(", "MessageRole.SYSTEM")
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_SERIALISERS = {"json", "pickle", "orjson", "ujson", "simplejson", "yaml", "marshal"}  # `dump`/`dumps` store a value
_METHODS = frozenset(sdks.method_names())  # SDK send methods a helper may be handed (flow/relays.py)


def find_layouts(module, evaluator) -> list:
    """The PromptLayouts of one module, in the order their sites appear; the module facts its rules
    read are gathered after the requests (python/module_facts.py)."""
    finder = SiteFinder(module, evaluator)
    finder.run()
    if module.tree.body:  # values produced only when an option off by default is on (gated_values.py)
        own = {module.span(module.tree.body[0]).filename: module}
        for layout in finder.b.layouts:
            note_gates(layout, own, evaluator.project)
    return module_facts.gather(module, evaluator, finder.b)


class SiteFinder:
    """Walks one module and records a layout for every prompt it sends or defines."""

    def __init__(self, module, evaluator):
        self.m = module
        self.ev = evaluator
        self.b = LayoutBuilder(module, evaluator, sdks.provider_for_model)
        self.stack: list = []
        self._frames: dict = {}
        self._called = sdks.called_for(module.imports.values())
        self._picks = "getattr(" in module.source  # a method picked by name may be called (picked.py)
        self._aliases = may_alias(module.source, sdks.method_names())  # `completion = client.chat.completions.create`
        self.tools_read: set = set()  # the tool functions whose results were read (tool_results.py)
        self.frame_reads: dict = {}  # id(frame) -> {(id(module), id(function)): (module, function)}

    def run(self) -> None:
        visits = {ast.FunctionDef: self._decorated, ast.AsyncFunctionDef: self._decorated,
                  ast.Assign: self._constant, ast.AnnAssign: self._constant, ast.Dict: self._dict,
                  ast.Return: self._return, ast.Call: self._call, ast.List: self._list, ast.AugAssign: self._placed,
                  ast.For: self._loop, ast.AsyncFor: self._loop, ast.If: self._emptied,
                  ast.ClassDef: self._class}
        scopes = (*_FUNCS, ast.ClassDef)
        todo: list = [self.m.tree]
        leave = object()
        while todo:
            node = todo.pop()
            if node is leave:
                if isinstance(self.stack[-1], _FUNCS) and is_generator(self.stack[-1], self.m):
                    self._generator(self.stack[-1])
                if isinstance(self.stack[-1], _FUNCS):
                    self.ev.reset_budget()
                    built_prompts.built(self, self.stack[-1])  # a prompt-builder object's sections
                    self.ev.reset_budget()
                    history_cuts.cut_in_place(self, self.stack[-1])
                    kept_turns.cut_kept(self, self.stack[-1])
                self.stack.pop()
                continue
            kind = type(node)
            visit = visits.get(kind)
            if visit is not None:
                visit(node)
            if kind in scopes:
                self.stack.append(node)
                todo.append(leave)
            todo.extend(reversed(children(node)))

    def frame(self, own: bool = False):
        """The frame of the innermost function around the current node (or the module's). `own`: a frame whose
        parameters are read from their names and annotations, not from the callers' arguments (its own code)."""
        func = next((n for n in reversed(self.stack) if isinstance(n, _FUNCS)), None)
        if func is None:
            return self.ev.module_frame(self.m)
        idx = self.stack.index(func)
        cls = self.stack[idx - 1] if idx > 0 and isinstance(self.stack[idx - 1], ast.ClassDef) else None
        key = ("own", id(func)) if own else id(func)
        frame = self._frames.get(key)
        if frame is None:
            frame = self._frames[key] = self.ev.unbound_frame(self.m, func, cls, depth=1 if own else 0)
        return frame

    def request_body(self, added, call) -> None:
        """The facts of the layouts of a request body a function returns (python/request_bodies.py)."""
        note_request(self, added, call)

    # ---------------------------------------------------------------- visits
    def _decorated(self, node) -> None:
        tool_results.decorated(self, node)  # a tool's results (what it returns to the model)
        self.ev.reset_budget()
        for d in node.decorator_list:
            name = decorator_name(d)
            for shape in sdks.decorators():
                if shape.matches(name):
                    before = len(self.b.layouts)
                    shape.build(self.b, node, name)
                    for layout in self.b.layouts[before:]:
                        layout.sdk = layout.sdk or sdks.display_name(shape)
                    return

    def _constant(self, node) -> None:
        """A prompt constant (module or class level) or a prompt attribute set in a method."""
        self.ev.reset_budget()
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if len(targets) != 1 or node.value is None:
            return
        target = targets[0]
        scope = self.stack[-1] if self.stack else None
        tool_results.assigned(self, target, node.value, scope)  # `TOOLS = [search, fetch]`: those tools' results
        if isinstance(target, ast.Name) and (scope is None or isinstance(scope, ast.ClassDef)):
            frame = self.ev.module_frame(self.m) if scope is None else self.class_frame(scope)
            candidates.constant(self, node, target.id, node.value, frame, module_level=scope is None)
            if scope is None:  # a template of a module named for prompts, whatever its name
                prompt_modules.template_constant(self, node, target.id, node.value, frame)
            else:  # a `$name` template a prompt class holds for its base to fill
                prompt_modules.class_template(self, node, target.id, node.value, frame, scope)
            template_objects.constructed(self, node, target.id, node.value, frame, module_level=scope is None)
        elif isinstance(target, ast.Subscript) and scope is None:  # `PROMPTS["answer"] = """...{query}..."""`
            prompt_modules.registry_entry(self, node, target, node.value, self.ev.module_frame(self.m))
        elif isinstance(target, ast.Subscript) and isinstance(scope, _FUNCS) and isinstance(node, ast.Assign) \
                and step_requests.may_write(node) and not self.b.covered(self.m.span(node)):
            if step_requests.written(self, node, self.frame()):  # a request pipeline's step (step_requests.py)
                self.b.sites.append(self.m.span(node))
        elif schema_orders.assigned(self, node):  # `schema["required"] = list(s)`, a tool's `self.description`
            return
        elif isinstance(target, ast.Attribute) and isinstance(scope, _FUNCS) and isinstance(node, ast.Assign):
            before = len(self.b.layouts)
            candidates.attribute(self, node, self.frame())
            if len(self.b.layouts) == before:
                drawn_heads.drawn_head(self, node, target, node.value, self.frame())
            kept_text.mark(self.b.layouts[before:], scope, target)
            history_cuts.window(self, node, node.value, scope)
        elif isinstance(target, ast.Name) and isinstance(scope, _FUNCS) and not self.b.covered(self.m.span(node)):
            before = len(self.b.layouts)
            candidates.local(self, node, target.id, node.value, self.frame())
            if len(self.b.layouts) == before:
                drawn_heads.drawn_head(self, node, target, node.value, self.frame())
            kept_text.mark(self.b.layouts[before:], scope, target)
            if section_dicts.sectioned(node.value, target.id) and prompt_named(target.id):
                section_dicts.section_dict(self, node, target.id, self.frame())  # a prompt as a dict of sections
        elif isinstance(target, ast.Subscript) and isinstance(scope, _FUNCS) and isinstance(node, ast.Assign) \
                and not self.b.covered(self.m.span(node)):
            drawn_heads.drawn_head(self, node, target, node.value, self.frame())  # `prompt["cot"] = "".join(random.sample(...)) + ...`

    def _class(self, node: ast.ClassDef) -> None:
        """Templates a class holds for a method of it or of a base to fill (python/class_templates.py)."""
        self.ev.reset_budget()
        class_templates.templates(self, node)

    def _placed(self, node) -> None:
        """A message put at the head of the conversation (`messages.insert(0, message)`,
        `messages[0]["content"] += text`) in a function."""
        if any(isinstance(s, _FUNCS) for s in self.stack):
            self.ev.reset_budget()
            candidates.placed_first(self, node, self.frame())

    def _emptied(self, node: ast.If) -> None:
        """A message appended to a list the `if` test says is empty (`if not messages:
        messages.append(system)`): put at the head of the conversation (`candidates.placed_first`)."""
        if any(isinstance(s, _FUNCS) for s in self.stack):
            for call in handoff.emptied_appends(node):
                if not self.b.covered(self.m.span(call)):
                    self.ev.reset_budget()
                    candidates.placed_first(self, call, self.frame(), emptied=True)

    def _loop(self, node) -> None:
        """A tools list grown in a loop over an unordered source (python/tool_loops.py)."""
        func = next((n for n in reversed(self.stack) if isinstance(n, _FUNCS)), None)
        if func is not None and not self.b.covered(self.m.span(node.iter)):
            self.ev.reset_budget()
            tool_loops.filled_in_loop(self, node, func, self.frame())

    def _applied(self, node: ast.Call) -> None:
        """Tools registered by a call that applies a method of the class to each item of an
        unordered iterable (python/tool_loops.py, `applied_in_call`)."""
        func = next((n for n in reversed(self.stack) if isinstance(n, _FUNCS)), None)
        if func is not None:
            self.ev.reset_budget()
            tool_loops.applied_in_call(self, node, func, self.frame())

    def class_frame(self, cls):
        from .flow.frames import Frame
        return Frame(module=self.m, cls=cls, module_level=True)

    def _dict(self, node: ast.Dict) -> None:
        self.ev.reset_budget()
        fields = {k.value: v for k, v in zip(node.keys, node.values)
                  if isinstance(k, ast.Constant) and isinstance(k.value, str)}
        self._system_message(node, fields)
        tool_results.result_message(self, node, fields)
        schema_orders.schema_dict(self, node)  # a JSON schema's `enum` / `required` built in an unstable order

    def _system_message(self, node, fields: dict) -> None:
        """A system message written outside a recognised call, with dynamic content."""
        role = fields.get("role")
        if not (isinstance(role, ast.Constant) and role.value in ("system", "developer")) or "content" not in fields:
            return
        span = self.m.span(node)
        if self.b.covered(span):
            return
        frame = self.frame()
        if in_answered_record(frame.func, node):
            return  # a message of a record of a finished exchange (a fine-tuning row), never sent
        read = appended_then_copied(frame.func, node)
        if read is not None and candidates.message_list(self, node, self.ev.eval(read, frame), frame):
            self.b.sites.append(span)  # `out.append(system); for m in messages: out.append({...}); send(out)`
            return
        part = self.b.part("system", self.ev.eval(fields["content"], frame), frame, self.m.span(fields["content"]))
        if any(not s.is_static for s in part.segments):
            layout = self.b.add(node, "python-constant", None, None, None, [part])
            kept_text.mark([layout], frame.func, fields["content"])  # (its text kept on the instance)
            self.b.sites.append(span)

    def _list(self, node: ast.List) -> None:
        """A message list written outside a recognised call and not returned, with a system message
        and the conversation spread into it (`kwargs["messages"] = [{"role": "system", ...},
        *kwargs["messages"]]`, handed to a wrapper): a prompt candidate of the whole list, so what
        changes in the system message is judged with the history after it."""
        if not any(isinstance(e, ast.Starred) for e in node.elts) or not candidates.builds_messages(node):
            return
        span = self.m.span(node)
        if self.b.covered(span):
            return
        self.ev.reset_budget()
        if candidates.message_list(self, node, self.ev.eval(node, self.frame()), self.frame()):
            self.b.sites.append(span)

    def _return(self, node: ast.Return) -> None:
        """A function returning prompt text or a message list (a prompt candidate)."""
        self.ev.reset_budget()
        func = next((n for n in reversed(self.stack) if isinstance(n, _FUNCS)), None)
        if func is None or node.value is None or self.b.covered(self.m.span(node)):
            return
        if request_bodies.may_return(self.m) and request_bodies.returned(self, node, self.frame(own=True)):
            return  # a Messages API request body returned for another function to send
        before = len(self.b.layouts)
        if candidates.returned(self, node, func, self.frame()):
            self.b.sites.append(self.m.span(node))
            # a message list whose conversation the function cut as it was handed in (its own
            # parameter), where its callers' list is no single history segment: the cut is its own
            if not any(s.window for lay in self.b.layouts[before:] for p in lay.parts for s in p.segments):
                history_cuts.window(self, node, node.value, func, own_only=True)
        elif history_cuts.window(self, node, node.value, func):
            self.b.sites.append(self.m.span(node))

    def _stored(self, node: ast.Call) -> None:
        """A conversation cut and then written to storage by a serialiser (`json.dump(messages[:1]
        + messages[-k:], file)`, `pickle.dumps(...)`) in a function: the next turn reads the cut
        list back and sends it, so it is judged as a cut the function keeps (`window`)."""
        func = next((n for n in reversed(self.stack) if isinstance(n, _FUNCS)), None)
        owner = node.func.value if isinstance(node.func, ast.Attribute) else node.func
        module = self.m.imports.get(owner.id, owner.id) if isinstance(owner, ast.Name) else ""
        if func is None or module.split(".")[0] not in _SERIALISERS or self.b.covered(self.m.span(node)):
            return
        self.ev.reset_budget()
        if history_cuts.window(self, node, node.args[0], func):
            self.b.sites.append(self.m.span(node))

    def _generator(self, func) -> None:
        """A generator function that yields prompt messages (a prompt candidate), or that yields the
        conversation sliced (`yield turns[max(0, i - w + 1):i + 1]` as `i` walks it: a window the
        caller sends, judged as a returned cut, `history_cuts.window`); read after its body, so
        the sites inside it are known."""
        self.ev.reset_budget()
        if candidates.generated(self, func, self.frame()) or not self.cuts(func):
            return
        for node in own_nodes(func, body_only=True):  # (a slice yielded: not each chunk of a stream read)
            if isinstance(node, ast.Yield) and isinstance(node.value, ast.Subscript) \
                    and isinstance(node.value.slice, ast.Slice) and not self.b.covered(self.m.span(node)):
                self.ev.reset_budget()
                if history_cuts.window(self, node, node.value, func):
                    self.b.sites.append(self.m.span(node))

    def writes_system(self, func) -> bool:
        """True when the function's source writes a system message (computed once per function)."""
        key = ("system", id(func))
        found = self._frames.get(key)
        if found is None:
            a, b = self.m.offsets(func)
            src = self.m.source
            found = self._frames[key] = (any(src.find(word, a, b) != -1 for word in _SYSTEM_WORDS)
                                         and _SYSTEM_MESSAGE.search(src, a, b) is not None)
        return found

    def cuts(self, func) -> bool:
        """True when the function's source holds a shape that cuts a list (computed once)."""
        key = ("cuts", id(func))
        found = self._frames.get(key)
        if found is None:
            a, b = self.m.offsets(func)
            found = self._frames[key] = history_cuts.cuts_text(self.m.source, a, b)
        return found

    def apart(self, func) -> bool:
        """True when a loop of the function renders the items it adds apart by age (`rewrites.apart_in`, once)."""
        key = ("apart", id(func))
        found = self._frames.get(key)
        if found is None:
            # (a loop or comprehension, counting by `enumerate` or by a `+=` counter)
            found = self._frames[key] = holds_any(self.m, func, ("for",)) \
                and holds_any(self.m, func, ("enumerate", "+=")) and rewrites.apart_in(func)
        return found

    def reads_cut(self, func, value_node) -> bool:
        """True when `history_cuts.window` reads `value_node` (what `func` returns or keeps) for a cut
        conversation: not text it builds, in a function that cuts a list (or renders the items it adds apart
        by age) and names a conversation, or is the read method of a message store (`reads_stored_messages`)."""
        return not builds_text(value_node) and (self.cuts(func) or self.apart(func)) \
            and (self.says_conversation(func) or reads_stored_messages(func, method_class(self.stack, func)))

    def says_conversation(self, func) -> bool:
        """True when the function's source names a conversation or its messages (`messages`, `chat_history`,
        `msgs`, `turns`, a `role`): a list it cuts can be the conversation only then (a cut list is one by its
        name, its annotation or the roles of its messages). Computed once."""
        key = ("conversation", id(func))
        found = self._frames.get(key)
        if found is None:
            a, b = self.m.offsets(func)
            found = self._frames[key] = _CONVERSATION_ROOTS.search(self.m.source, a, b) is not None
        return found

    def _called_object(self, node: ast.Call) -> None:
        """A call, by a name no shape matches, of an object an imported SDK made (`self.ask(topic=t)`
        where `self.ask = dspy.Predict(Sig)`): each such SDK's `called` reads the callee's value."""
        self.ev.reset_budget()
        call = sdks.Call.of(self.m, node)
        call.frame = self.frame()
        value = self.ev.eval(node.func, call.frame)
        for build in self._called:
            before = len(self.b.layouts)
            self.b.unplaced = []
            try:
                build(self.b, call, value)
            except RecursionError:
                pass
            if len(self.b.layouts) > before:
                for layout in self.b.layouts[before:]:
                    layout.sdk = layout.sdk or sdks.display_name(build)
                note_request(self, self.b.layouts[before:], call)
                return

    def _call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Attribute):
            name = func.attr
            if isinstance(func.value, ast.Name) and func.value.id == "self" \
                    and (held := sdks.module_attributes(self.m).get(name)) is not None:
                name = held.rsplit(".", 1)[-1]  # `self._complete(...)` with `self._complete = litellm.completion`
        elif isinstance(func, ast.Name):  # an imported alias matches by the name it stands for
            name = self.m.imports.get(func.id, func.id).rsplit(".", 1)[-1]
        else:
            name = None
        if name == "insert":
            self._placed(node)
        if name in ("dump", "dumps") and node.args:
            self._stored(node)
        if name in ("gather", "create_task", "ensure_future") and node.args and not self.b.covered(self.m.span(node)):
            concurrent_fills.gathered(self, node)  # a tools registry filled in completion order
        if name in tool_loops.APPLIERS and "self." in self.m.code(node) and not self.b.covered(self.m.span(node)):
            self._applied(node)  # `pipe(paths, map(partial(self.register, ...)))`: a tools registry filled
        tool_results.called(self, node, name)  # `Agent(tools=[search])`, `ToolMessage(content=...)`
        if name == "Field":
            schema_orders.field_call(self, node)  # a schema's description or enum built in an unstable order
        if name == "dict":
            self.ev.reset_budget()
            self._system_message(node, {k.arg: k.value for k in node.keywords if k.arg is not None})
        if (inner := relayed_call(self.m, node, name, self.ev.project, _METHODS, self._method_aliases)) is not None:
            self._call(inner)  # `functools.partial(client.messages.create, **payload)`: the call it makes
        candidates = sdks.shapes_for(name) if name is not None else ()
        if not candidates and self._picks and self._picked(node):
            return
        matched = False
        if candidates:
            self.ev.reset_budget()
            call = sdks.Call.of(self.m, node)
            calls = [call]
            if any(k.arg is None for k in node.keywords):
                call.frame = self.frame()
                calls = request_dicts.expansions(self.b, call, call.frame)
            before = len(self.b.layouts)
            for variant, one in enumerate(calls):
                if variant:
                    self.ev.reset_budget()
                matched = self._send(candidates, one, variant) or matched
            if len(calls) == 1:  # one request per class of `self` (subclass_sends.py)
                subclass_sends.per_class(self, call, self.b.layouts[before:], lambda c, v: self._send(candidates, c, v))
        if not matched and self._aliases and isinstance(func, ast.Name) and func.id not in self.m.imports \
                and self._aliased(node):
            return
        if not matched:  # no SDK's call (`self.client.create(...)` of a wrapper named as one is none either)
            self._unmatched(node, name)
            self._handed_body(node)

    def _method_aliases(self, node: ast.Call) -> frozenset:
        """The names the enclosing function (or the module) binds to SDK methods, when the
        module's text binds any (`create_func = self._client.messages.create`): handed to a
        function that calls them (flow/relays.py), they send a request."""
        if not self._aliases:
            return frozenset()
        func = next((n for n in reversed(self.stack) if isinstance(n, _FUNCS)), None)
        return method_aliases(func, self.m.tree, sdks.method_names())

    def _aliased(self, node: ast.Call) -> bool:
        """A call of a name bound to an SDK method (python/picked.py `aliased_calls`), read as the
        method's own call; True when one of them added a layout."""
        func = next((n for n in reversed(self.stack) if isinstance(n, _FUNCS)), None)
        added = False
        for inner in aliased_calls(node, func, self.m.tree, sdks.method_names()):
            before = len(self.b.layouts)
            self._call(inner)
            added = added or len(self.b.layouts) > before
        return added

    def _picked(self, node: ast.Call) -> bool:
        """A call of an SDK method picked by `getattr` (python/picked.py), read as the method's
        own call; True when one of them added a layout."""
        func = next((n for n in reversed(self.stack) if isinstance(n, _FUNCS)), None)
        for inner in picked_calls(node, func, sdks.method_names()):
            before = len(self.b.layouts)
            self._call(inner)
            if len(self.b.layouts) > before:
                return True
        return False

    def _handed_body(self, node: ast.Call) -> None:
        """A Messages API request body handed to a function that sends it (python/request_bodies.py)."""
        if not (node.args or node.keywords) or not (request_bodies.may_return(self.m) or request_bodies.may_invoke(self.m)) \
                or self.b.covered(self.m.span(node)):
            return
        func = next((n for n in reversed(self.stack) if isinstance(n, _FUNCS)), None)
        if func is not None:
            self.ev.reset_budget()
            request_bodies.handed(self, node, func, self.frame(own=True))

    def _unmatched(self, node: ast.Call, name: str | None) -> None:
        """A call no send shape matches: an object it builds from the keywords of a called class,
        and the prompt text or message list written into its arguments (`filled_argument`)."""
        if name is not None and node.keywords and self._called:
            self._called_object(node)
        args = [*node.args, *(k.value for k in node.keywords)]
        if any(filled_template(a) or builds_messages(a) or prompt_keyword(node, a) or method_filled(node, a) for a in args) \
                and not self.b.covered(self.m.span(node)):
            self.ev.reset_budget()
            filled_argument(self, node, self.frame())
        if template_calls.may_fill(node) and not self.b.covered(self.m.span(node)):
            self.ev.reset_budget()  # a template filled through a callable made with it (python/template_calls.py)
            template_calls.filled_through(self, node, self.frame())
        if system_edits.might_edit(node) and any(isinstance(s, _FUNCS) for s in self.stack) \
                and not self.b.covered(self.m.span(node)):
            self.ev.reset_budget()  # a helper that writes its text into the system message (python/system_edits.py)
            if system_edits.edited_head(self, node, self.frame()):
                self.b.sites.append(self.m.span(node))
        if kept_conversations.might_write_head(node) and any(isinstance(s, _FUNCS) for s in self.stack) \
                and not self.b.covered(self.m.span(node)):
            self.ev.reset_budget()  # a keeper's head writer called from a holder (python/kept_conversations.py)
            if kept_conversations.head_written(self, node, self.frame()):
                self.b.sites.append(self.m.span(node))
        if handed_heads.might_set(node) and any(isinstance(s, _FUNCS) for s in self.stack) \
                and not self.b.covered(self.m.span(node)):
            self.ev.reset_budget()  # a setter of another object's system prompt, then its conversation (python/handed_heads.py)
            if handed_heads.set_then_handed(self, node, self.frame()):
                self.b.sites.append(self.m.span(node))

    def _send(self, candidates, call, variant: int = 0) -> bool:
        """Build the layout of a call of an SDK shape (`variant`: which of the requests a call
        sent with one of several request dicts is, `request_dicts.expansions`); True when a shape
        matched."""
        hit = False
        for shape in candidates:
            if shape.matches(call):
                call.frame = call.frame or self.frame()
                before = len(self.b.layouts)
                self.b.unplaced = []
                try:
                    shape.build(self.b, call)
                except RecursionError:  # pathological nesting: this prompt is not analysed
                    pass
                hit = hit or not shape.needs_layout or len(self.b.layouts) > before
                if len(self.b.layouts) > before:
                    for layout in self.b.layouts[before:]:
                        layout.variant = variant
                        layout.sdk = layout.sdk or sdks.display_name(shape)
                    note_request(self, self.b.layouts[before:], call)
                if shape.final:
                    break
        return hit

