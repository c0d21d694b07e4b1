"""Ids and times in tool definitions: a tool list whose definitions (a tool's name, description or
parameters) hold a value that changes per request or per instance (`Tool(name=f"finish_{self.id}")`
with `self.id = str(uuid4())`) changes the very front of every request that sends it. A tool
*call* made in the code carries its ids in other fields (`id`, `tool_call_id`): not a definition."""
from __future__ import annotations

from ..model import Kind, Segment, Volatility
from .flow.values import Alt, Mapping, Obj, Seq, Spread, Text, most_volatile


def is_stamp(seg: Segment | None) -> bool:
    """True for an id or a time whose source is known (not only its name)."""
    return seg is not None and seg.kind in (Kind.UNIQUE_ID, Kind.TIMESTAMP) and not seg.name_only \
        and seg.volatility not in (Volatility.UNKNOWN, Volatility.STABLE)


#: Fields of a tool definition (its name, what the model reads about it); a tool *call* or run
#: made in the code carries its ids in other fields (`id`, `tool_call_id`, `run_id`, `start_time`).
_DEFINITION_FIELDS = {"name", "description", "parameters", "input_schema", "instructions", "title", "function"}


#: Fields that name a record of any kind (a result, a run); with no description, parameters or
#: schema beside them the record is no tool definition (`Result(eval_id=..., name=f"eval_{id}")`).
_NAMES = {"name", "title"}


def find_stamped(value, depth: int = 0) -> Segment | None:
    """The most volatile id or time in the definition fields of a (tools) value: the name,
    description or parameters of a tool dict or of a tool object built in the code
    (`Tool(name=f"finish_{self.id}", description=...)`, an instance's `uuid4()` id in its name), or
    None. A record with a name and no description, parameters or schema is not a tool."""
    found: list[Segment] = []
    todo = [(value, depth, False)]  # (a loop, not a nested recursive function: no reference cycle)
    while todo:
        v, d, field = todo.pop()
        if d > 6:
            continue
        if isinstance(v, Text):
            if field:
                found.extend(s for s in v.segs if is_stamp(s))
        elif isinstance(v, (Seq, Alt)):
            todo.extend((item, d + 1, field) for item in reversed(v.items if isinstance(v, Seq) else v.options))
        elif isinstance(v, Spread):
            todo.append((v.value, d + 1, field))
        elif isinstance(v, (Mapping, Obj)):
            fields = v.items if isinstance(v, Mapping) else v.kwargs
            described = any(key in _DEFINITION_FIELDS and key not in _NAMES for key in fields)
            todo.extend((item, d + 1, field or key in _DEFINITION_FIELDS and (described or key not in _NAMES))
                        for key, item in reversed(list(fields.items())))
    return most_volatile(found)
