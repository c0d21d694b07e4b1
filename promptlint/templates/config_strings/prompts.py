"""Which strings of a YAML, TOML or JSON file are prompts (by key, parent key, prose and file
name), walking its located tree, and the ConfigPrompt (one Part per message) of each."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from ...model import Part, Segment, Span
from ..prompt_files import is_prompt_named
from .located import _Lines, _Str
from .segments import value_segments
from .tree import located_tree

_PROMPT_KEY = re.compile(
    r"^(system|system_prompt|system_message|system_instructions?|instructions?|prompts?|templates?|"
    r"messages?|content|preamble|persona|user|human|assistant|developer|user_prompt|human_prompt|"
    r".*_(prompt|prompts|template|templates|instructions?|message|messages))$")
# prompt-like keys whose *children* are prompts too (`template` and `content` are too generic)
_PROMPT_PARENT = re.compile(r"^(prompts?|messages|.*_(prompts|messages|templates)|system|instructions)$")
_NOT_PROMPT_LEAF = {"model", "name", "role", "type", "id", "provider", "api_key", "base_url", "url",
                    "version", "engine", "format", "language", "lang", "path", "file", "filename",
                    "encoding", "tokenizer", "stop", "author", "license"}
# prompt-like keys that are also ordinary config words: their strings must read like prose
_WEAK_KEYS = {"user", "human", "assistant", "developer", "system", "content", "template", "templates",
              "message", "messages", "prompt", "prompts"}
_SYSTEM_WORDS = {"system", "sysprompt", "instruction", "instructions", "preamble", "persona"}
_ROLES = {"human": "user", "user": "user", "ai": "assistant", "assistant": "assistant",
          "system": "system", "developer": "developer", "tool": "tool"}


@dataclass
class ConfigPrompt:
    """One prompt found in a config file.

    `keys`: the key path in the parsed data (`["assistant", "system_prompt"]`, list indexes as
    ints). `names`: what the entries around it are called by a field of their own, nearest first
    (`- task: generate_user_intent` beside `content: ...` -> ["generate_user_intent"]): an
    application that keeps its prompts in a list picks one by that name. `span`: the value, from its first character. `key_span`: the key (or list item) that
    holds it. `parts`: one Part per message (a single-string prompt has one Part: role "system"
    when the key says system prompt or instructions, user/assistant/developer when it says so,
    else "prompt": text whose place in a request is not known).
    """

    keys: list[str | int]
    span: Span
    key_span: Span
    parts: list[Part] = field(default_factory=list)
    names: list[str] = field(default_factory=list)

    @property
    def segments(self) -> list[Segment]:
        return [s for p in self.parts for s in p.segments]

    @property
    def key(self) -> str:
        return ".".join(str(k) for k in self.keys)


def config_prompts(path: Path, filename: str, text: str) -> list[ConfigPrompt]:
    """The prompt strings of a YAML or TOML file, each with its segments at exact rows/columns.

    A string is a prompt when its key is a specific prompt key (`system_prompt`, `instructions`,
    `preamble`, `*_prompt`, `*_template`, `*_instructions`, ...), or when it is prose (a line break,
    or three words or more) under a generic one (`system`, `prompt`, `template`, `content`,
    `user`, ...), under a prompt-like parent key (`prompts`, `messages`, ...) or in a file whose
    name or folder says "prompt". A list of `{role, content}` mappings (or
    `[role, content]` pairs) under a prompt-like key is one prompt with a Part per message.
    Strings with Jinja syntax are parsed as Jinja (never rendered); others get `{var}` /
    `{{var}}` / `$var` placeholders. Files that do not parse give [].
    """
    located = located_tree(path, text)
    if located is None:
        return []
    tree, key_offsets = located
    lines = _Lines(text)
    promptish = _promptish(path)
    out: list[ConfigPrompt] = []

    def walk(node: Any, keys: list[str | int], parent_prompt: bool, names: list[str]) -> None:
        last = _last_key(keys)
        if isinstance(node, dict):
            names = _entry_names(node) + names
            for k, v in node.items():
                walk(v, keys + [k], parent_prompt or bool(_PROMPT_PARENT.match(_norm(str(k)))), names)
        elif isinstance(node, list):
            messages = _messages(node) if last and _PROMPT_KEY.match(_norm(last)) else None
            if messages:
                out.append(_prompt(path, filename, text, lines, keys, messages, key_offsets, names))
                return
            for i, v in enumerate(node):
                walk(v, keys + [i], parent_prompt, names)
        elif isinstance(node, _Str) and node.value.strip():
            leaf = _norm(last or "")
            if leaf in _NOT_PROMPT_LEAF:
                return
            strong = bool(last) and bool(_PROMPT_KEY.match(leaf)) and leaf not in _WEAK_KEYS
            weak = leaf in _WEAK_KEYS or parent_prompt or promptish
            if strong or (weak and _prose(node.value)):
                out.append(_prompt(path, filename, text, lines, keys, [(_role_of(keys), node)], key_offsets, names))

    walk(tree, [], False, [])
    return out


#: Fields that name an entry of a list of prompts (`- task: generate_user_intent`, `- name: judge`).
_ENTRY_KEYS = ("task", "name", "id", "key", "slug")
_ENTRY_NAME = re.compile(r"^[A-Za-z_][\w.-]{0,80}$")


def _entry_names(node: dict) -> list[str]:
    """The names a mapping gives itself by its naming fields (`task`, `name`, `id`, ...): their
    text values that are one identifier-like word."""
    out = []
    for key in _ENTRY_KEYS:
        value = node.get(key)
        if isinstance(value, _Str) and _ENTRY_NAME.match(value.value):
            out.append(value.value)
    return out


def _prompt(path, filename, text, lines, keys, messages, key_offsets, names=()) -> ConfigPrompt:
    parts = []
    for role, value in messages:
        start = lines.position(value.offsets[0])
        end = lines.position(value.offsets[-1])
        parts.append(Part(role=role, segments=value_segments(path, filename, text, value, lines),
                          span=Span(filename, start, end)))
    first = messages[0][1]
    key_off = key_offsets.get(tuple(keys), first.offsets[0])
    key_pos = lines.position(key_off)
    return ConfigPrompt(keys=list(keys), span=Span(filename, parts[0].span.start, parts[-1].span.end),
                        key_span=Span(filename, key_pos, key_pos), parts=parts, names=list(names))


def _messages(items: list) -> list[tuple[str, "_Str"]] | None:
    """[(role, content)] for a list of {role, content} mappings (the role also written `type:
    system`, a role's name), or of [role, content] pairs. A string item that is one Jinja
    placeholder among such mappings (`- "{{ history | to_chat_messages }}"`) is a value that
    expands to messages where it stands: role "unknown"."""
    out = []
    for item in items:
        if isinstance(item, _Str) and _LONE_PLACEHOLDER.match(item.value):
            out.append(("unknown", item))
            continue
        if isinstance(item, dict) and not isinstance(item.get("role"), _Str) and isinstance(item.get("type"), _Str) \
                and item["type"].value.lower() in _ROLES and "content" in item:
            item = {**item, "role": item["type"]}
        if isinstance(item, dict) and isinstance(item.get("role"), _Str):
            role, content = item["role"].value, item.get("content", item.get("text"))
            if isinstance(content, list):  # content blocks: the first text block
                content = next((b.get("text") for b in content if isinstance(b, dict)
                                and isinstance(b.get("text"), _Str)), None)
        elif isinstance(item, list) and len(item) == 2 and all(isinstance(x, _Str) for x in item):
            role, content = item[0].value, item[1]
        else:
            return None
        if not isinstance(content, _Str):
            return None
        out.append((_ROLES.get(role.lower(), role.lower()), content))
    return out if any(role != "unknown" for role, _ in out) else None


#: A string that is one Jinja placeholder and nothing else.
_LONE_PLACEHOLDER = re.compile(r"^\s*\{\{[^{}]*\}\}\s*$")


def _role_of(keys: list) -> str:
    for key in reversed(keys):
        if isinstance(key, str):
            words = set(_norm(key).split("_"))
            if words & {"user", "human"}:
                return "user"
            if words & {"assistant", "ai"}:
                return "assistant"
            if "developer" in words:
                return "developer"
            # the key says system prompt (`system_prompt`, `instructions`), else its place in a
            # request is not known (`instance_template` may be the first user message): "prompt"
            return "system" if words & _SYSTEM_WORDS or len(keys) == 0 else "prompt"
    return "system"


def _last_key(keys: list) -> str | None:
    return next((k for k in reversed(keys) if isinstance(k, str)), None)


def _norm(key: str) -> str:
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", key).replace("-", "_").lower()


def _prose(value: str) -> bool:
    """A line break, or at least three words."""
    return "\n" in value.strip() or len(value.split()) >= 3


def _promptish(path: Path) -> bool:
    """A config file named for prompts, or in one of 3 nearest folders named for prompts."""
    posix = PurePosixPath(Path(path).as_posix())
    return is_prompt_named(posix.stem) or any(is_prompt_named(p) for p in posix.parent.parts[-3:])
