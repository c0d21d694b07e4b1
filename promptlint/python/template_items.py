"""A field of the items of a list a rendered template loops over, bound from Python: the default
of a record class's field that makes a new id or time for each instance (`name: str =
field(default=Factory(lambda self: self.id, takes_self=True))` with `id` a `uuid4().hex`,
`created: datetime = field(default_factory=datetime.now)`), read by the template of every item
(`{% for ruleset in rulesets %}Ruleset name: {{ ruleset.name }}`).

The items' class is known from the list's value (an instance of a class of the tree the code
puts in it) or from the annotation of the parameter passed for it (`rulesets: list[Ruleset] |
None`). The items come (at least in part) from elsewhere, built with or without that field: one
built without it renders a new id each time it is made, so the text changes with every instance,
at least once per process (docs/policies.md, Policy 1: per process). Bound as `rulesets[].name`
(templates/jinja_values.py reads it at `{{ ruleset.name }}`); its span is where Python makes the value.
"""
from __future__ import annotations

import ast
from ..model import replace

from ..model import PER_INSTANCE, Kind, Segment, Volatility
from .flow.values import Alt, ClassRef, Obj, Seq, Spread, most_volatile

_LISTS = ("list", "List", "Sequence", "Iterable", "tuple", "Tuple")


def _instances(value, out: list, depth: int = 0) -> None:
    """The instances of classes of the tree held in a list value (its items, spread lists and
    alternatives), and whether an item is of unknown construction (`None` appended to `out`)."""
    if depth > 4:
        return
    if isinstance(value, Alt):
        for option in value.options:
            _instances(option, out, depth + 1)
    elif isinstance(value, Seq):
        for item in value.items:
            _instances(item.value if isinstance(item, Spread) else item, out, depth + 1)
    elif isinstance(value, Obj) and value.qualname.startswith("instance:") and value.args \
            and isinstance(value.args[0], ClassRef):
        out.append(value)
    else:
        out.append(None)


def _annotated_class(evaluator, node, frame) -> ClassRef | None:
    """The item class of the annotation of the parameter `node` names (`rulesets: list[Ruleset] |
    None`, `Optional[List[Ruleset]]`), when it is a class of the tree."""
    func = frame.func
    if isinstance(node, ast.BoolOp) and node.values:  # `rulesets or []`
        node = node.values[0]
    if not isinstance(node, ast.Name) or func is None:
        return None
    a = func.args
    param = next((p for p in [*a.posonlyargs, *a.args, *a.kwonlyargs] if p.arg == node.id), None)
    ann = param.annotation if param is not None else None
    for _ in range(3):  # `X | None`, `Optional[X]`
        if isinstance(ann, ast.BinOp):
            ann = ann.left if not (isinstance(ann.left, ast.Constant) and ann.left.value is None) else ann.right
        elif isinstance(ann, ast.Subscript) and getattr(ann.value, "id", getattr(ann.value, "attr", "")) == "Optional":
            ann = ann.slice
    if not (isinstance(ann, ast.Subscript) and getattr(ann.value, "id", getattr(ann.value, "attr", "")) in _LISTS):
        return None
    item = ann.slice
    if isinstance(item, ast.Tuple) and item.elts:
        item = item.elts[0]
    if not isinstance(item, (ast.Name, ast.Attribute)):
        return None
    ref = evaluator.eval(item, frame, {})
    return ref if isinstance(ref, ClassRef) else None


def item_bindings(evaluator, values: dict, nodes: dict, frame, path, text) -> dict[str, Segment]:
    """`root[].attr` -> the segment of a field default that makes a new id or time for each item,
    for each `{% for x in root %}` of the template that reads `x.attr`."""
    from ..templates.jinja import item_paths, read_template
    if text is None:
        text = read_template(path)
    paths = item_paths(text or "", list(values))
    if not paths:
        return {}
    out: dict[str, Segment] = {}
    for root, attrs in paths:
        held: list = []
        _instances(values[root], held)
        classes = {id(o.node): o.args[0] for o in held if o is not None}
        typed = _annotated_class(evaluator, nodes.get(root), frame)
        if typed is not None:
            classes.setdefault(id(typed.node), typed)
        elif None not in held and not any(attrs[0] not in o.kwargs for o in held if o is not None):
            continue  # every item is built in view with the field given
        for ref in classes.values():
            item = Obj(f"instance:{ref.node.name}", node=ref.node, args=[ref])  # built elsewhere
            value = evaluator.attr_of(item, attrs[0], None, frame)
            seg = most_volatile(evaluator.text_of(value, frame)) if value is not None else None
            if seg is None or seg.kind not in (Kind.UNIQUE_ID, Kind.TIMESTAMP) or seg.name_only \
                    or seg.volatility is Volatility.UNKNOWN:
                continue
            out[f"{root}[].{attrs[0]}"] = replace(
                seg, volatility=Volatility.PER_PROCESS,
                evidence=f"{seg.evidence}: the default of `{ref.node.name}.{attrs[0]}` for an item built without it "
                         f"({PER_INSTANCE}, at least once per process)",
                origin_note=f"default of `{ref.node.name}.{attrs[0]}` made here")
            break
    return out
