"""What a LangChain chain is made of, read from the evaluator's values (facts for
sdks/langchain.py): the prompt template at its head and the runnables after it.

    prompt = get_prompt("review")          # a helper's return, a dict lookup by a constant key
    chain = prompt | llm | parser           # also RunnableSequence(prompt, llm), LLMChain(prompt=p, llm=llm)
    chain.invoke({"diff": diff, "languages": langs})

`chain_of(value)`: the head (a `ChatPromptTemplate.from_messages` object, a string template's text
`TemplateText`, or one of several of them: a helper that returns one template per name), the
partial values bound on the way (`prompt.partial(style=...)`) and the runnables after the head, in
order (the chat model among them). `filled_templates(head, keys)`: of the templates (string or
chat) the head may be, those an invoke with these keys fills: LangChain raises for a template variable
the input does not give, so a template with a placeholder the keys (and its partial values) do not
name is not the one invoked, and one that names none of the keys is not shown to be either.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .flow.text import FORMAT_FIELD
from .flow.values import Alt, Obj, Seq, TemplateText, Text, Value
from .layout_values import variants_of


@dataclass
class Chain:
    """`head`: the value at the head of the chain (the prompt template); `partials`: values bound
    by `.partial(...)` on the way, by name; `rest`: the runnables after the head, in order."""
    head: Value
    partials: dict = field(default_factory=dict)
    rest: list = field(default_factory=list)


def _last(qualname: str) -> str:
    return qualname.rsplit(".", 1)[-1]


def chain_of(value) -> Chain | None:
    """The chain `value` stands for (see the module docstring); None when it is no chain: a value
    that is neither a pipe, a sequence, an LLMChain nor a partial of one."""
    partials: dict = {}
    rest: list = []
    seen = False
    while isinstance(value, Obj):
        name = _last(value.qualname)
        if value.qualname == "chain" and value.args:  # `a | b` (flow/operators.py)
            rest[0:0] = value.args[1:]
            value = value.args[0]
        elif value.qualname.endswith(".partial") and value.args:
            partials.update(value.kwargs)
            value = value.args[0]
        elif name == "RunnableSequence" and (value.args or "first" in value.kwargs):
            steps = list(value.args) or [value.kwargs.get("first"), *_items(value.kwargs.get("middle")),
                                         value.kwargs.get("last")]
            steps = [s for s in steps if s is not None]
            if not steps:
                return None
            rest[0:0] = steps[1:]
            value = steps[0]
        elif name == "LLMChain" and "prompt" in value.kwargs:
            rest[0:0] = [v for v in (value.kwargs.get("llm"), value.kwargs.get("output_parser")) if v is not None]
            value = value.kwargs["prompt"]
        else:
            break
        seen = True
    return Chain(value, partials, rest) if seen and value is not None else None


def _items(value) -> list:
    """The steps of a `middle=[...]` list display."""
    return list(value.items) if isinstance(value, Seq) and not value.repeated else []


def placeholders(template: Text) -> set[str]:
    """The names of the `{fields}` written in the static text of a string template."""
    out = set()
    for seg in template.segs:
        if seg.is_static:
            for mt in FORMAT_FIELD.finditer(seg.text):
                head = (mt.group(1) or "").strip()
                if head.isidentifier():
                    out.add(head)
    return out


def _message_placeholders(template: Obj) -> set[str]:
    """The `{fields}` written in the static text of a `ChatPromptTemplate.from_messages([...])`'s
    messages (its message list is its second argument: the class, then the list)."""
    out: set[str] = set()
    todo = list(template.args[1:2])
    while todo and len(out) < 200:
        value = todo.pop()
        if isinstance(value, Text):
            out |= placeholders(value)
        elif isinstance(value, (Seq, Alt)):
            todo.extend(value.items if isinstance(value, Seq) else value.options)
        elif isinstance(value, Obj):
            todo.extend([*value.args, *value.kwargs.values()])
    return out


def _names(option) -> set[str] | None:
    """The placeholders of a template the head may be (a string template, a chat template's
    messages); None for a value that is no template."""
    if isinstance(option, TemplateText):
        return placeholders(option)
    if isinstance(option, Obj) and option.qualname.endswith("ChatPromptTemplate.from_messages"):
        return _message_placeholders(option)
    return None


def filled_templates(head, keys: set[str], partials: dict) -> list:
    """The string templates among the variants of `head` that an invoke given `keys` fills: each
    of their placeholders named by the keys, the partial values of the chain or of the template,
    and at least one of them named by the keys (see the module docstring); of those, the ones
    that use every key when there are such (the input is written for them: another template
    would leave keys unused)."""
    out = []
    for option in variants_of(head):
        names = _names(option)
        if names is None:
            continue
        given = keys | set(partials) | set(getattr(option, "partials", None) or {})
        if names and names <= given and names & keys and all(o is not option for o in out):
            out.append((option, names))
    exact = [o for o, names in out if keys <= names]
    return exact or [o for o, _ in out]
