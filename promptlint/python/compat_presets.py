"""A class that points the OpenAI-SDK client its base class builds at Anthropic's
OpenAI-compatible endpoint: a fact for PRM302 (the rule judges it).

A provider preset is often a subclass that only changes where a shared OpenAI-compatible client
sends (a plugin framework's `class AnthropicProvider(OpenAICompatibleProvider): base_url =
"https://api.anthropic.com/v1/"`, an agent framework's `class ClaudeChannel(LLMChannel):
channel_api_base = ...`). Its base class, in another module, builds the client from that
attribute (`AsyncOpenAI(base_url=self.resolve_base_url(s))` where `resolve_base_url` returns
`self.base_url`; `OpenAI(base_url=self.channel_api_base)`) and sends with it. Anthropic's
OpenAI-compatible endpoint does no prompt caching (https://docs.claude.com/en/api/openai-sdk):
every request of the preset is paid in full, breakpoint or not. The site of the send sits in the
base class and takes the base's own URL (OpenAI's, or none), so the request is judged there as
OpenAI's: the preset's endpoint is seen only here.

Shape: a class statement of the module whose body assigns a name Anthropic's base URL
(`https://api.anthropic.com/v1`, with or without the slash; not the Messages API's `/v1/messages`),
and one of its bases of the analysed tree (`evaluator.mro`) has a method, not overridden by the
class or a base before it, that builds an OpenAI SDK client (`OpenAI`, `AsyncOpenAI`, LangChain's
`ChatOpenAI`) whose base URL keyword (`base_url`, `openai_api_base`, `api_base`) reads that
attribute of `self` or `cls`, directly or through one method of the base that reads it (not
overridden either), in a module that sends a chat request (`chat.completions.create`, or the
LangChain model itself). One fact per class: (the URL's value node, the attribute's name, the
base class's name, the base URL keyword's value node and its module).
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from .walk import subtree

#: Anthropic's API root as an OpenAI SDK base URL (the compatibility layer's).
_COMPAT = re.compile(r"^https?://api\.anthropic\.com/v1/?$")
#: OpenAI SDK clients (and LangChain's OpenAI chat model) built with a base URL.
_CLIENTS = frozenset(("OpenAI", "AsyncOpenAI", "ChatOpenAI"))
_URL_KEYS = frozenset(("base_url", "openai_api_base", "api_base"))
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class CompatPreset:
    """`url`: the constant the class assigns; `attr`: the attribute it sets; `base`: the name of the
    base class that builds the client; `built`: the base URL keyword's value; `module`: its module."""

    url: ast.Constant
    attr: str
    base: str
    built: ast.expr
    module: object


#: An indented assignment of Anthropic's base URL (a class attribute, maybe annotated).
_ASSIGNED = re.compile(r"^[ \t]+\w+[ \t]*(?::[^=\n]+)?=[ \t]*[\"']https?://api\.anthropic\.com/v1/?[\"']", re.M)


def might_hold(source: str) -> bool:
    """Cheap text test: the module assigns Anthropic's base URL to a name on an indented line (a
    class attribute: `    base_url = "https://api.anthropic.com/v1/"`)."""
    return "api.anthropic.com" in source and _ASSIGNED.search(source) is not None


def compat_presets(module, evaluator) -> list[CompatPreset]:
    """The classes of `module` that point their base class's OpenAI client at Anthropic's
    OpenAI-compatible endpoint (the module docstring), in source order."""
    out = []
    for cls in (n for n in module.tree.body if isinstance(n, ast.ClassDef)):
        urls = _compat_attributes(cls)
        if not urls:
            continue
        overridden = {n.name for n in cls.body if isinstance(n, _FUNCS)}
        for base_module, base in list(evaluator.mro(module, cls))[1:]:
            methods = {n.name: n for n in base.body if isinstance(n, _FUNCS)}
            found = _built_from(base_module, methods, overridden, set(urls))
            if found is not None:
                attr, built = found
                out.append(CompatPreset(urls[attr], attr, base.name, built, base_module))
                break
            overridden |= set(methods)
    return out


def _compat_attributes(cls: ast.ClassDef) -> dict[str, ast.Constant]:
    """{attribute: its value} for each class-level assignment of Anthropic's base URL."""
    out = {}
    for stmt in cls.body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] \
            if isinstance(stmt, ast.AnnAssign) and stmt.value is not None else []
        value = getattr(stmt, "value", None)
        if isinstance(value, ast.Constant) and isinstance(value.value, str) and _COMPAT.match(value.value):
            out.update((t.id, value) for t in targets if isinstance(t, ast.Name))
    return out


def _built_from(module, methods: dict, overridden: set, attrs: set):
    """(attribute, the base URL keyword's value) for a client built in a method of `methods` (not in
    `overridden`) from one of `attrs` of `self` or `cls`, directly or through one method of
    `methods` that reads it; None when there is none or the module sends no chat request."""
    if "openai" not in module.source or ("chat.completions.create" not in module.source
                                         and "ChatOpenAI" not in module.source):
        return None
    for name, method in methods.items():
        if name in overridden:
            continue
        for call in subtree(method):
            if not (isinstance(call, ast.Call) and _callee(call) in _CLIENTS):
                continue
            for kw in call.keywords:
                if kw.arg not in _URL_KEYS:
                    continue
                read = _reads(kw.value, attrs)
                for helper in _own_calls(kw.value):
                    if read is None and helper in methods and helper not in overridden:
                        read = _reads(methods[helper], attrs)
                if read is not None:
                    return read, kw.value
    return None


def _callee(call: ast.Call) -> str:
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def _reads(node, attrs: set) -> str | None:
    """The first of `attrs` read as `self.<attr>` or `cls.<attr>` under `node`, or None."""
    for n in subtree(node):
        if isinstance(n, ast.Attribute) and n.attr in attrs and isinstance(n.value, ast.Name) \
                and n.value.id in ("self", "cls"):
            return n.attr
    return None


def _own_calls(node) -> list[str]:
    """The names of the methods of `self` or `cls` called under `node` (`self.resolve_base_url(s)`)."""
    return [n.func.attr for n in subtree(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and isinstance(n.func.value, ast.Name) and n.func.value.id in ("self", "cls")]
