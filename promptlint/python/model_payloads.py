"""A chosen model that reaches the request through a payload dict: facts for PRM205.

The model value (the chosen model or the name it is bound to) is written into a dict under the
key `"model"`, in the function that chose it:

- a dict display or `dict(...)`: `payload = {**body, "model": pick}`, `dict(model=pick, ...)`;
- a subscript assignment: `form_data["model"] = pick`;
- an update: `params.update(model=pick)`, `params.update({"model": pick})`.

The dict is then sent, after the write (by line), in the same function:

- `"spread"`: unpacked into a call (`client.chat.completions.create(**payload)`): the SDK call;
- `"wrapper"`: passed to a function whose name says it makes a request (`generate_chat_completion(
  request, form_data)`, `http.post(url, json=payload)`): the name is the evidence; a call whose
  result is assigned back to the dict (`form_data = await complete_tools(form_data)`) is a step
  that hands it back, not its send;
- `"caller"`: not sent here, but handed back to the caller that sends it: the dict is a parameter
  of the function (written in place) or returned, and the function uses it as a request (gives or
  reads its messages key: a dict of a model alone may be a configuration read once). The write is
  then the place related.

`conversation`: the dict gives a key of the messages (`"messages"`, `"contents"`) a value named as
the conversation (`history`, `chat_messages`), in a display or a subscript assignment of it.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from . import sdks

#: Words of a callee's last name that say it makes a request with what it is given.
_SENDS = {"completion", "completions", "create", "acreate", "invoke", "ainvoke", "complete", "acomplete",
          "generate", "post", "send", "stream", "astream"}
#: Keys of a request dict that carry its messages.
_MESSAGE_KEYS = {"messages", "contents", "input", "history"}


@dataclass
class PayloadSend:
    """`request`: the call that sends the dict (or, for `how == "caller"`, the statement writing the
    model into it); `how`: "spread", "wrapper" or "caller" (see the module docstring); `payload`:
    the dict's source text; `conversation`: see the module docstring."""

    request: ast.AST
    how: str
    payload: str
    conversation: bool


def payload_send(module, func, own, name: str | None, value, is_conversation) -> PayloadSend | None:
    """The send of a payload dict the chosen model (`value`, or the local `name` bound to it) is
    written into in `func` (whose own nodes are `own`); None when it is written in none, or the dict
    is neither sent nor handed back. `is_conversation(expr)` says a value is named as the conversation."""

    def it(expr) -> bool:
        return expr is value or name is not None and isinstance(expr, ast.Name) and expr.id == name

    calls = sorted((c for c in own if isinstance(c, ast.Call)), key=lambda c: (c.lineno, c.col_offset))
    for write, target, display in _writes(own, it):
        if target is None:  # a display given straight to a call: that call is the send
            call = next((c for c in calls if display in c.args or any(k.value is display for k in c.keywords)), None)
            spread = call is not None and any(k.arg is None and k.value is display for k in call.keywords) and _requests(call)
            if call is not None and (spread or _sends(call)):
                return PayloadSend(call, "spread" if spread else "wrapper", module.code(display),
                                   _carries(display, is_conversation))
            continue
        text = module.code(target)
        same = lambda e: isinstance(e, (ast.Name, ast.Attribute)) and module.code(e) == text  # noqa: E731
        after = [c for c in calls if (c.lineno, c.col_offset) >= (write.lineno, write.col_offset)]
        conversation = _conversation_of(own, same, is_conversation)
        spread = next((c for c in after if any(k.arg is None and same(k.value) for k in c.keywords) and _requests(c)), None)
        if spread is not None:
            return PayloadSend(spread, "spread", text, conversation)
        rebuilt = _rebuilt_by(own, same)
        wrapper = next((c for c in after if _sends(c) and id(c) not in rebuilt
                        and not (isinstance(c.func, ast.Attribute) and same(c.func.value))
                        and any(same(a) for a in [*c.args, *(k.value for k in c.keywords)])), None)
        if wrapper is not None:
            return PayloadSend(wrapper, "wrapper", text, conversation)
        if _handed_back(func, own, target, same) and _request_shaped(own, same, display):
            return PayloadSend(write, "caller", text, conversation)
    return None


def _writes(own, it):
    """(statement or call, the dict written or None, the display) for each write of the model under
    `"model"`, in the order of the source. The dict is the name or attribute assigned the display
    (or subscripted, or updated); None for a display given straight to a call."""
    out = []
    assigned = {id(n.value): n.targets[0] for n in own if isinstance(n, ast.Assign) and len(n.targets) == 1
                and isinstance(n.targets[0], (ast.Name, ast.Attribute))}
    for n in own:
        if isinstance(n, ast.Assign) and it(n.value):
            for t in n.targets:
                if isinstance(t, ast.Subscript) and _is_model_key(t.slice) and isinstance(t.value, (ast.Name, ast.Attribute)):
                    out.append((n, t.value, None))
        elif isinstance(n, ast.Dict) and any(_is_model_key(k) and it(v) for k, v in zip(n.keys, n.values)):
            out.append((n, assigned.get(id(n)), n))
        elif isinstance(n, ast.Call):
            f = n.func
            if isinstance(f, ast.Name) and f.id == "dict" and any(k.arg == "model" and it(k.value) for k in n.keywords):
                out.append((n, assigned.get(id(n)), n))
            elif isinstance(f, ast.Attribute) and f.attr == "update" and isinstance(f.value, (ast.Name, ast.Attribute)) \
                    and (any(k.arg == "model" and it(k.value) for k in n.keywords)
                         or any(isinstance(a, ast.Dict) and any(_is_model_key(k) and it(v) for k, v in zip(a.keys, a.values))
                                for a in n.args)):
                out.append((n, f.value, None))
    return sorted(out, key=lambda w: (w[0].lineno, w[0].col_offset))


def _request_shaped(own, same, display) -> bool:
    """True when the function uses the dict as a request: gives or reads a messages key of it
    (`form_data["messages"]`, `body.get("messages")`, a display with `"messages"`). A dict of a
    model and nothing else handed back may be a configuration read once."""
    if display is not None and (_keys(display) & _MESSAGE_KEYS):
        return True
    for n in own:
        if isinstance(n, ast.Subscript) and same(n.value) and isinstance(n.slice, ast.Constant) \
                and n.slice.value in _MESSAGE_KEYS:
            return True
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and same(n.func.value) and n.args \
                and isinstance(n.args[0], ast.Constant) and n.args[0].value in _MESSAGE_KEYS:
            return True
        if isinstance(n, ast.Assign) and any(same(t) for t in n.targets) and _keys(n.value) & _MESSAGE_KEYS:
            return True
    return False


def _keys(display) -> set:
    """The constant keys of a dict display or the keywords of `dict(...)`."""
    if isinstance(display, ast.Dict):
        return {k.value for k in display.keys if isinstance(k, ast.Constant)}
    if isinstance(display, ast.Call) and isinstance(display.func, ast.Name) and display.func.id == "dict":
        return {k.arg for k in display.keywords if k.arg}
    return set()


def _rebuilt_by(own, same) -> set[int]:
    """Ids of the calls whose result is assigned back to the dict (`form_data, flags = await
    tools_handler(request, form_data)`): steps that hand the dict back, not its send."""
    out = set()
    for n in own:
        if isinstance(n, ast.Assign):
            targets = [e for t in n.targets for e in (t.elts if isinstance(t, ast.Tuple) else [t])]
            if any(same(t) for t in targets):
                value = n.value.value if isinstance(n.value, ast.Await) else n.value
                out.add(id(value))
    return out


def _is_model_key(key) -> bool:
    return isinstance(key, ast.Constant) and key.value == "model"


def _sends(call: ast.Call) -> bool:
    """True when the callee's last name has a word of making a request (`generate_chat_completion`,
    `create`, `post`)."""
    f = call.func
    name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
    return bool(set(re.findall(r"[a-z]+", re.sub(r"(?<=[a-z])(?=[A-Z])", "_", name).lower())) & _SENDS)


def _requests(call: ast.Call) -> bool:
    """True when a call the payload is spread into is a request: an SDK call shape's method
    (`client.chat.completions.create(**payload)`) or a callee named for sending (`_sends`);
    `Trace(**payload)` is none."""
    f = call.func
    name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
    return bool(sdks.shapes_for(name)) or _sends(call)


def _carries(display, is_conversation) -> bool:
    """True when a dict display or `dict(...)` gives a messages key a value named as the conversation."""
    if isinstance(display, ast.Dict):
        return any(isinstance(k, ast.Constant) and k.value in _MESSAGE_KEYS and is_conversation(v)
                   for k, v in zip(display.keys, display.values))
    return any(k.arg in _MESSAGE_KEYS and is_conversation(k.value) for k in display.keywords)


def _conversation_of(own, same, is_conversation) -> bool:
    """True when the function gives the dict a messages key with a value named as the conversation."""
    for n in own:
        if isinstance(n, ast.Assign):
            if isinstance(n.value, (ast.Dict, ast.Call)) and any(same(t) for t in n.targets) \
                    and (isinstance(n.value, ast.Dict) or isinstance(n.value.func, ast.Name) and n.value.func.id == "dict") \
                    and _carries(n.value, is_conversation):
                return True
            if any(isinstance(t, ast.Subscript) and same(t.value) and isinstance(t.slice, ast.Constant)
                   and t.slice.value in _MESSAGE_KEYS for t in n.targets) and is_conversation(n.value):
                return True
    return False


def _handed_back(func, own, target, same) -> bool:
    """True when the dict goes back to the caller: a parameter of `func` (written in place) or returned."""
    if isinstance(target, ast.Name):
        a = func.args
        if target.id in {p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs]}:
            return True
    for n in own:
        if isinstance(n, ast.Return) and n.value is not None:
            values = n.value.elts if isinstance(n.value, ast.Tuple) else [n.value]
            if any(same(v) for v in values):
                return True
    return False
