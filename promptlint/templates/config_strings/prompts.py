"""Which strings of a YAML, TOML or JSON file are prompts (by key, parent key, prose, file name,
and content: template text under a key for text), walking its located tree, and the
ConfigPrompt (one Part per message) of each; `judged_strings` keeps the reason of every string
(`explain` says why one is not read)."""
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
#: A Python object reference (`package.module:function`): an entry point (`[project.scripts]`), a
#: plugin or an app to load, whatever its key is called (`prompt-template = "pkg.prompt.template:run"`).
_OBJECT_REFERENCE = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$")
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


def config_prompts(path: Path, filename: str, text: str, fmt: str | None = None) -> list[ConfigPrompt]:
    """The prompt strings of a YAML or TOML file, each with its segments at exact rows/columns
    (`fmt`: "yaml", "toml" or "json" for a file whose suffix does not say it, else by suffix).

    A string is a prompt by one of `SIGNALS` (`judged_strings` says which, or why none):
    its key is a specific prompt key (`system_prompt`, `instructions`, `preamble`, `*_prompt`,
    `*_template`, `*_instructions`, ...); or it is prose (a line break, or three words or more)
    under a generic one (`system`, `prompt`, `template`, `content`, `user`, ...), under a
    prompt-like parent key (`prompts`, `messages`, ...) or in a file whose name or folder says
    "prompt"; or it is template text by its content: under a key for text (`value`, `text`,
    `body`), 30 words or more of prose over several lines with a template placeholder (`{{x}}`,
    `{x}`, `${x}`, a Jinja tag) that the mapping declares (`parameters: [objective]`) or in text
    that speaks to a model ("you", "your", 3 times or more); such text with no placeholder is one
    in a file the project's Python names (`references.named_by_code`). An entry of a list of
    mappings outside a prompt-like key (`seeds: - value: ...`, a CI workflow's `steps`) is a
    record: only its key makes its text a prompt, never the file's name nor its content. A list of `{role,
    content}` mappings (or `[role, content]` pairs) under a prompt-like key is one prompt with a
    Part per message. Strings with Jinja syntax are parsed as Jinja (never rendered); others get
    `{var}` / `{{var}}` / `$var` placeholders. Files that do not parse give [].
    """
    found = judged_strings(path, filename, text, fmt)
    out: list[ConfigPrompt] = []
    for judged in found or ():
        if judged.prompt is not None and not any(p is judged.prompt for p in out):  # a message list's messages: one prompt
            out.append(judged.prompt)
    return out


@dataclass
class Judged:
    """One string of a config file and what was decided of it. `keys`: its key path; `row`,
    `end_row`: the 1-based rows from its key (or list item) to the value's last character;
    `chars`: its length in characters; `prompt`: the ConfigPrompt it is (or belongs to, for a
    message of a list), else None; `reason`: why it is a prompt (a name of `SIGNALS`), or one
    sentence saying why it is not."""

    keys: list[str | int]
    row: int
    end_row: int
    chars: int
    prompt: ConfigPrompt | None
    reason: str


#: How a string of a config file becomes a prompt, strongest first (the registry `judged_strings` reads):
#: (name, what it says in `explain`).
SIGNALS = (
    ("prompt-key", "its key names a prompt"),
    ("message-list", "it is a message of a list of {role, content} messages"),
    ("generic-key", "its key is a generic prompt key and it reads like prose"),
    ("prompt-parent", "it is prose under a key that holds prompts"),
    ("prompt-file", "it is prose in a file whose name or folder says prompt"),
    ("template-text", "it is template text: long prose over several lines with placeholders, under a key for text"),
    ("named-text", "it is long prose over several lines under a key for text, in a file the project's Python names"),
)

#: Keys that hold text of any kind (`value: |` of a prompt kept with its metadata): a prompt only by its content.
_TEXT_KEYS = {"value", "text", "body"}
_TEMPLATE_WORDS = 30  # words of prose: shorter text is a label, a description or a one-line setting
_WORD = re.compile(r"[^\W\d_]{2,}")
_TEMPLATE_MARK = re.compile(r"\{\{-?\s*(?P<name>[A-Za-z_]\w*)[\w.]*[^{}]*\}\}|\{%-?\s*(?:if|for)\s+(?P<name2>[A-Za-z_]\w*)"
                            r"|(?<![{$\\])\{(?P<name3>[A-Za-z_]\w*)[\w.]*(?:![rsa])?(?::[^{}\n]*)?\}(?!\})"
                            r"|\$\{(?P<name4>[A-Za-z_]\w*)\}")
#: Second-person words: a text that speaks to a model ("You are", "your answer") 3 times or more.
_SECOND_PERSON = re.compile(r"\b(?:you|your|yours|yourself)\b", re.I)
_ADDRESSED = 3
#: Sibling keys that declare a template's placeholders (`parameters: [objective]`, LangChain's `input_variables`).
_DECLARING_KEYS = {"parameters", "params", "input_variables", "variables", "inputs", "input_keys", "arguments",
                   "args", "placeholders"}


def judged_strings(path: Path, filename: str, text: str, fmt: str | None = None) -> list[Judged] | None:
    """Every non-empty string of a config file, in document order, with what was decided of it
    (`Judged`); None when the file does not parse."""
    located = located_tree(path, text, fmt)
    if located is None:
        return None
    tree, key_offsets = located
    lines = _Lines(text)
    promptish = _promptish(path)
    named = _Named(path)
    out: list[Judged] = []

    def rows(node: _Str, keys: list) -> tuple[int, int, int]:  # first row, last row, characters
        first = min(node.offsets[0], key_offsets.get(tuple(keys), node.offsets[0])) if keys else node.offsets[0]
        return lines.position(first).row, lines.position(node.offsets[max(0, len(node.value) - 1)]).row, len(node.value)

    def walk(node: Any, keys: list[str | int], parent_prompt: bool, names: list[str], dataset: str | None,
             declared: frozenset = frozenset()) -> None:
        last = _last_key(keys)
        if isinstance(node, dict):
            names = _entry_names(node) + names
            declared = _declared(node)
            for k, v in node.items():
                walk(v, keys + [k], parent_prompt or bool(_PROMPT_PARENT.match(_norm(str(k)))), names, dataset,
                     declared)
        elif isinstance(node, list):
            messages = _messages(node) if last and _PROMPT_KEY.match(_norm(last)) else None
            if messages:
                prompt = _prompt(path, filename, text, lines, keys, messages, key_offsets, names)
                for _, value in messages:
                    out.append(Judged(keys, *rows(value, keys), prompt, "message-list"))
                return
            entries = dataset
            if entries is None and not parent_prompt and not (last and _PROMPT_KEY.match(_norm(last))) \
                    and any(isinstance(v, dict) for v in node):
                entries = (f"in an entry of the list `{_dotted(keys) or '(top level)'}` ({len(node)} entr"
                           f"{'y' if len(node) == 1 else 'ies'}), a list of records (a dataset's items, steps)")
            for i, v in enumerate(node):
                walk(v, keys + [i], parent_prompt, names, entries if isinstance(v, dict) else dataset)
        elif isinstance(node, _Str) and node.value.strip():
            reason = _judge(node, last, parent_prompt, promptish, dataset, named, rows(node, [])[:2], declared)
            prompt = _prompt(path, filename, text, lines, keys, [(_role_of(keys), node)], key_offsets, names) \
                if reason in _SIGNAL_NAMES else None
            out.append(Judged(keys, *rows(node, keys), prompt, reason))

    walk(tree, [], False, [], None)
    return out


_SIGNAL_NAMES = {name for name, _ in SIGNALS}


def _judge(node: _Str, last: str | None, parent_prompt: bool, promptish: bool, dataset: str | None,
           named: "_Named", span: tuple[int, int], declared: frozenset) -> str:
    """The name of the signal that makes the string a prompt, or why it is none (one sentence).
    `last`: its key; `span`: the rows its value is written on; `declared`: the placeholder names
    the mapping that holds it declares (`_declared`)."""
    leaf = _norm(last or "")
    if leaf in _NOT_PROMPT_LEAF:
        return f"its key `{last}` holds a setting (a name, a model, a path), not prompt text"
    if _OBJECT_REFERENCE.match(node.value.strip()):
        return "its value names a Python object (`module:function`, an entry point), not prompt text"
    if last and _PROMPT_KEY.match(leaf) and leaf not in _WEAK_KEYS:
        return "prompt-key"
    prose = _prose(node.value)
    if leaf in _WEAK_KEYS and prose:
        return "generic-key"
    if parent_prompt and prose:
        return "prompt-parent"
    if dataset is not None:
        return (f"it is {dataset}, not a prompt: only a key that names a prompt (`system_prompt`, "
                f"`instructions`, `*_prompt`) makes the text of such an entry one")
    if promptish and prose:
        return "prompt-file"
    if not prose:
        return "it is a short value (fewer than three words, one line), not prose"
    why = _not_template_text(node.value, leaf, span)
    if why is not None:
        return why
    marks = {next(g for g in m.groups() if g) for m in _TEMPLATE_MARK.finditer(node.value)}
    addressed = len(_SECOND_PERSON.findall(node.value)) >= _ADDRESSED
    if marks and (addressed or marks & declared):
        return "template-text"
    if not marks and addressed and named():
        return "named-text"
    if marks:
        return (f"its text has placeholders ({_names(marks)}), but neither does the mapping that holds it declare "
                f"them (`parameters:`, `input_variables:`) nor does the text speak to a model (`you`, `your`)")
    if not addressed:
        return "its text has no template placeholder (`{{x}}`, `{x}`, `${x}`) and does not speak to a model (`you`, `your`)"
    return (f"its text has no template placeholder (`{{{{x}}}}`, `{{x}}`, `${{x}}`) and no Python file of the project "
            f"names `{named.name}`")


def _declared(node: dict) -> frozenset:
    """The placeholder names a mapping declares by a sibling key (`parameters: [objective]`,
    `input_variables: [question]`, `inputs: {question: ...}`, `- name: question` items)."""
    out: set[str] = set()
    for key, value in node.items():
        if not isinstance(key, str) or _norm(key) not in _DECLARING_KEYS:
            continue
        items = list(value) if isinstance(value, (list, dict)) else [value]
        for item in items:
            if isinstance(item, dict):
                item = item.get("name")
            if isinstance(item, _Str):
                out.add(item.value.strip())
            elif isinstance(item, str):
                out.add(item)
    return frozenset(out)


def _names(marks: set[str]) -> str:
    return ", ".join(f"`{m}`" for m in sorted(marks)[:3]) + (", ..." if len(marks) > 3 else "")


def _not_template_text(value: str, leaf: str, span: tuple[int, int]) -> str | None:
    """None when `value`, under key `leaf` and written over source rows `span`, may be template
    text by its content (a key for text, several lines, 30 words or more of prose); else why not."""
    if leaf not in _TEXT_KEYS:
        return ("neither its key (not one that names a prompt, as `system_prompt`, `instructions`, `*_prompt`, "
                "`*_template`, nor one for text: `value`, `text`, `body`) nor the file's name or folders say prompt")
    if span[1] <= span[0]:
        return "it is text on one line, not a template kept over several lines"
    words = len(_WORD.findall(value))
    if words < _TEMPLATE_WORDS or words < len(value.split()) / 2:
        return f"it holds {words} words of prose (a prompt kept as text holds {_TEMPLATE_WORDS} or more)"
    return None


class _Named:
    """Whether the project's Python names a config file by its file name (a literal `"x.yaml"`, or
    one part of a path it builds: `Path(BASE) / "crescendo" / "x.yaml"`, `os.path.join(d, "x.yaml")`);
    asked only once, and only when needed (it scans the project's Python once per process)."""

    def __init__(self, path: Path):
        self.path, self.name, self._found = Path(path), Path(path).name, None

    def __call__(self) -> bool:
        if self._found is None:
            from ..references import named_by_code
            self._found = named_by_code(self.path, _package_folder(self.path), by_stem=False)
        return self._found


def _package_folder(path: Path) -> Path:
    """The folder whose project's Python may name `path`: the nearest of its 4 nearest folders
    that is a Python package (data kept deep inside a package, `pkg/datasets/executors/x/`),
    else its own folder (`references.project_root` climbs from there)."""
    folder = path.resolve().parent
    for candidate in [folder, *folder.parents][:4]:
        if (candidate / "__init__.py").is_file():
            return candidate
    return folder


def _dotted(keys: list) -> str:
    return ".".join(str(k) for k in keys)


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
