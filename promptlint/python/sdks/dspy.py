"""DSPy: a predictor made from a Signature class (`self.ask = dspy.Predict(AskQuestion)`,
`dspy.ChainOfThought(Sig)`) and called with its input fields by keyword (`self.ask(topic=t,
conv=c)`), under whatever name it was assigned: matched by the callee's value, not its name.

The prompt DSPy builds from it: the Signature's docstring (the instructions) and the description
of its fields first, then the input fields in the order the class declares them (not the order of
the keywords), each after its prefix (`prefix="Topic you want to write: "`, else the field name
capitalised), then the first output field's prefix. Both DSPy formats agree on that order: the
legacy template sends it as one prompt, the chat adapter sends the instructions and field
descriptions as the system message and the inputs as the user message; the layout follows the
chat adapter (system, then the newest user message).
"""
from __future__ import annotations

import ast

from ...model import Part, Segment
from ..flow.values import ClassRef, Obj
from .base import Sdk

#: The modules that make a predictor from a Signature (the class name after `dspy.`).
PREDICTORS = {"Predict", "ChainOfThought", "ChainOfThoughtWithHint", "TypedPredictor", "TypedChainOfThought",
              "ProgramOfThought", "ReAct", "MultiChainComparison"}
_FIELDS = {"InputField": "in", "OutputField": "out"}


def predictor(value) -> ClassRef | None:
    """The Signature class of a DSPy predictor value (`dspy.Predict(Sig)`), or None."""
    if not isinstance(value, Obj) or not value.qualname.startswith("dspy."):
        return None
    if value.qualname.rsplit(".", 1)[-1] not in PREDICTORS:
        return None
    sig = value.kwargs.get("signature")
    if isinstance(sig, ClassRef):
        return sig
    return next((a for a in value.args if isinstance(a, ClassRef)), None)


def fields(sig: ClassRef) -> list[tuple[str, str, str, ast.AST]]:
    """(name, "in" or "out", prefix, node) of each field the Signature class declares, in order."""
    out = []
    for stmt in sig.node.body:
        target, value = None, None
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            target, value = stmt.targets[0].id, stmt.value
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            target, value = stmt.target.id, stmt.value
        if target is None or not isinstance(value, ast.Call):
            continue
        func = value.func
        kind = _FIELDS.get(func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", ""))
        if kind is None:
            continue
        prefix = next((k.value.value for k in value.keywords if k.arg == "prefix"
                       and isinstance(k.value, ast.Constant) and isinstance(k.value.value, str)), None)
        out.append((target, kind, prefix if prefix is not None else target.replace("_", " ").capitalize() + ":",
                    stmt))
    return out


def called(b, call, value) -> None:
    """The layout of a call of a DSPy predictor with its input fields by keyword."""
    sig = predictor(value)
    if sig is None or not call.kwargs:
        return
    declared = fields(sig)
    inputs = [f for f in declared if f[1] == "in"]
    if not inputs or not any(name in call.kwargs for name, *_ in inputs):
        return
    frame = call.frame
    m = sig.module
    doc = sig.node.body[0] if sig.node.body and isinstance(sig.node.body[0], ast.Expr) \
        and isinstance(sig.node.body[0].value, ast.Constant) and isinstance(sig.node.body[0].value.value, str) else None
    system: list[Segment] = []
    if doc is not None:
        system.append(Segment(text=ast.get_docstring(sig.node) or "", span=m.span(doc)))
    described = "\n\n".join(f"{prefix.strip()} ${{{name}}}" for name, _, prefix, _ in declared)
    system.append(Segment(text="\n\n---\n\nFollow the following format.\n\n" + described + "\n\n---\n\n",
                          span=m.span(sig.node)))
    user: list[Segment] = []
    for name, _, prefix, node in inputs:
        user.append(Segment(text=("\n" if user else "") + prefix.rstrip(" ") + " ", span=m.span(node)))
        if name in call.kwargs:
            user.extend(b.ev.text_of(b.value(call.kwargs[name], frame), frame))
    outputs = [f for f in declared if f[1] == "out"]
    if outputs:
        user.append(Segment(text="\n" + outputs[0][2].rstrip(" "), span=m.span(outputs[0][3])))
    parts = [Part("system", system, span=m.span(sig.node)), Part("user", user, span=b.m.span(call.node))]
    b.add(call.node, "python-call", None, "dspy." + value.qualname.rsplit(".", 1)[-1], None, parts, 1)


SDK = Sdk(
    name="dspy",
    imports=("dspy",),
    hints=("dspy.Predict", "dspy.ChainOfThought", "dspy.TypedPredictor", "dspy.ReAct", "dspy.ProgramOfThought"),
    called=called,
)
