"""What a tool returns to the model, in an order that differs between processes: facts for PRM202.

A tool's result is appended to the conversation and stays in it: every later request of that
conversation re-sends it. When the same call returns its items in another order in another process
(a set iterated, `list(set(x))`, a directory listing not sorted, a dict or an object built from
one), a re-run of the same conversation (a replay, an evaluation run, a retry in another worker)
stops matching a prefix cached by an earlier process at that result.

The tools recognised (a decorator, a base class or a list's name is the evidence: Policy 7):
- functions decorated as tools (`classify.TOOL_DECORATORS`: `@tool`, `@mcp.tool()`,
  `@agent.tool_plain`, `@function_tool`, ...), and the methods that give a tool class's result
  (a base class named `...Tool`; `classify.TOOL_METHODS`: `_run`, `forward`, ...);
- functions of the tree listed as tools: in a list, tuple or dict display kept in a name that says
  tools (`TOOLS = [search, fetch]`, `self.tools = {...}`) or given as a call's `tools=` /
  `functions=` or to `bind_tools(...)`, also each wrapped in a call (`make_function(f)`,
  `FunctionTool.from_defaults(fn=f)`, `Tool(name=..., func=f)`);
- the content of a tool-result message written in the code, outside a request the analysis reads
  (`{"role": "tool", "content": ...}`, `{"type": "tool_result", ...}`, `{"type":
  "function_call_output", "output": ...}`, `ToolMessage(content=...)`).

What each `return` of a tool gives is read by the evaluator (through helpers, the methods of an
object handed to the tool, `Annotated[Calendar, Depends(...)]` too, and the fields of the objects
it builds); an unordered iteration held anywhere in it is a candidate with one `tool` part whose
span is the tool, reported by PRM202 where the order is lost (Policy 8).
"""
from __future__ import annotations

import ast

from ..classify import TOOL_DECORATORS, TOOL_MESSAGES, TOOL_METHODS
from ..model import Part, Segment
from .flow.values import Func, Text, held_order
from .module import attribute_chain
from .tool_values import listed_order
from .walk import own_nodes

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: Keywords of a call that wraps one function as a tool (`Tool(func=f)`, `from_defaults(fn=f)`).
_WRAPPED = ("func", "fn", "function", "coroutine", "afunc", "callable")
#: Keywords of a call that take a list of tools.
TOOL_KEYWORDS = ("tools", "functions")
#: Calls whose first argument is a list of tools.
TAKERS = ("bind_tools", "bind_functions")
#: `(key, value)` of a dict display that is a tool's result, and the key of its content.
_RESULT_DICTS = {("role", "tool"): "content", ("role", "function"): "content", ("type", "tool_result"): "content",
                 ("type", "function_call_output"): "output"}
_SETS = ("set", "frozenset")
_DISPLAYS = (ast.List, ast.Tuple, ast.Set, ast.Dict)


def decorated(finder, node) -> None:
    """A function decorated as a tool, or a tool class's method that gives its result, visited
    before its body (`finder.stack` ends with the scope around it)."""
    cls = finder.stack[-1] if finder.stack and isinstance(finder.stack[-1], ast.ClassDef) else None
    if _tool_decorated(finder.m, node) or (cls is not None and node.name in TOOL_METHODS and tool_class(cls)):
        _returned(finder, Func(finder.m, node, cls), node)


def _tool_decorated(module, node) -> bool:
    """True when a decorator of `node` makes it a tool (`classify.TOOL_DECORATORS`, by its last
    name; a bare name by the name it is imported as: `from langchain_core.tools import tool as lc_tool`)."""
    for d in node.decorator_list:
        chain = attribute_chain(d.func if isinstance(d, ast.Call) else d)
        if len(chain) == 1:
            chain = module.imports.get(chain[0], chain[0]).split(".")
        if chain and chain[-1] in TOOL_DECORATORS:
            return True
    return False


def tool_class(cls: ast.ClassDef) -> bool:
    """True for a class with a base class named for a tool (`BaseTool`, `Tool`, `Tool[Args]`)."""
    for base in cls.bases:
        chain = attribute_chain(base.value if isinstance(base, ast.Subscript) else base)
        if chain and chain[-1].endswith("Tool"):
            return True
    return False


def assigned(finder, target, value_node, scope) -> None:
    """A tools list display kept in a name that says tools (`TOOLS = [search, fetch]`,
    `self.tools = {"fetch": fetch}`), at any level (`scope`: the def or class around it, or None)."""
    from .prompt_names import tools_named
    if isinstance(value_node, _DISPLAYS) and tools_named(getattr(target, "id", getattr(target, "attr", ""))):
        listed(finder, value_node, finder.class_frame(scope) if isinstance(scope, ast.ClassDef) else finder.frame(),
               named=True)


def listed(finder, value_node, frame, named: bool = False) -> None:
    """The functions of the tree a tools list display holds (`value_node`: a list, tuple, set or
    dict display kept in a name that says tools, `named`: only that name says they are tools; or
    given as a call's tools)."""
    if isinstance(value_node, ast.Dict):
        elements = [v for v in value_node.values if v is not None]
    elif isinstance(value_node, (ast.List, ast.Tuple, ast.Set)):
        elements = [e.value if isinstance(e, ast.Starred) else e for e in value_node.elts]
    else:
        return
    for element in elements:
        fn = _function_of(finder, element, frame)
        if fn is not None:
            _returned(finder, fn, element, named)


def called(finder, call: ast.Call, name: str | None) -> None:
    """A call given tools lists (`Agent(tools=[search])`, `llm.bind_tools([fetch])`: `name` the
    callee's last name), or one that builds a tool-result message (`ToolMessage(content=...)`)."""
    if name in TOOL_MESSAGES:
        result_call(finder, call, name)
    if name not in TAKERS and not any(k.arg in TOOL_KEYWORDS for k in call.keywords):
        return
    given = [k.value for k in call.keywords if k.arg in TOOL_KEYWORDS]
    if name in TAKERS and call.args:
        given.append(call.args[0])
    for value_node in given:
        if isinstance(value_node, (ast.List, ast.Tuple, ast.Dict)):
            listed(finder, value_node, finder.frame())


def _function_of(finder, element, frame) -> Func | None:
    """The function of the tree an element of a tools list stands for: itself (`search`,
    `self.search`), or the one function a call wraps (`make_function(search)`, `Tool(func=search)`)."""
    if isinstance(element, ast.Call):
        inner = next((k.value for k in element.keywords if k.arg in _WRAPPED), None)
        element = inner if inner is not None else element.args[0] if element.args else None
    if not isinstance(element, (ast.Name, ast.Attribute)):
        return None
    finder.ev.reset_budget(speculative=True)
    value = finder.ev.eval(element, frame)
    return value if isinstance(value, Func) else None


def result_message(finder, node, fields: dict) -> None:
    """A tool-result message written as a dict display (`fields`: its static keys' value nodes),
    outside a request the analysis reads."""
    content = None
    for (key, word), content_key in _RESULT_DICTS.items():
        tag = fields.get(key)
        if isinstance(tag, ast.Constant) and tag.value == word:
            content = fields.get(content_key)
            break
    if content is not None:
        _message(finder, node, content)


def result_call(finder, call: ast.Call, name: str | None) -> None:
    """A tool-result message built by its class (`ToolMessage(content=..., tool_call_id=...)`)."""
    key = TOOL_MESSAGES.get(name or "")
    content = next((k.value for k in call.keywords if k.arg == key), None) if key else None
    if content is None and key and call.args:
        content = call.args[0]
    if content is not None:
        _message(finder, call, content)


def _message(finder, node, content) -> None:
    span = finder.m.span(node)
    if finder.b.covered(span):
        return  # a message of a request read whole: judged there
    frame = finder.frame()
    finder.ev.reset_budget(speculative=True)
    value = finder.ev.eval(content, frame)
    seg = _order(finder.ev, value, content, frame)
    if seg is not None:
        finder.b.add(node, "python-constant", None, None, None, [Part("tool", [seg], span=span)])


def _returned(finder, fn: Func, site, named: bool = False) -> None:
    """A tool function's results (each `return` of its own body, read with its parameters from
    their annotations: the model gives them): a candidate at `site` for each unordered iteration
    one of them holds (`named`: only the name of a list says it is a tool). Each function is read
    once per analysed file."""
    seen = finder.tools_read
    if id(fn.node) in seen:
        return
    seen.add(id(fn.node))
    frame = finder.ev.function_frame(fn.module, fn.node, fn.cls, self_value=fn.self_value, depth=1)
    returns = sorted((n for n in own_nodes(fn.node, body_only=True) if isinstance(n, ast.Return) and n.value is not None),
                     key=lambda n: (n.lineno, n.col_offset))
    found: set = set()
    for ret in returns:
        finder.ev.reset_budget(speculative=True)
        value = finder.ev.eval(ret.value, frame)
        seg = listed_order(finder.ev, ret, value, frame) or _order(finder.ev, value, ret.value, frame)
        if seg is None or seg.span in found:
            continue
        found.add(seg.span)
        part = Part("tool", [seg], span=fn.module.span(fn.node), name_only=named)
        finder.b.add(site, "python-constant", None, None, None, [part])


def _order(ev, value, node, frame) -> Segment | None:
    """The unordered-iteration segment `value` (the value of `node`) holds, in its text, its items
    or the fields of the objects it is made of; one not yet placed is placed at `node` when `node`
    gives it as its own text (`return os.listdir(d)`: sorting there keeps what it returns; not a set
    made there, whose sorting would change what it is)."""
    seg = held_order(value, objects=True)
    if seg is None or seg.anchor is not None or not isinstance(value, Text) or seg not in value.segs:
        return seg
    if isinstance(node, (ast.Set, ast.SetComp)) or isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id in _SETS:
        return seg
    return ev.unordered_at(seg, node, frame)
