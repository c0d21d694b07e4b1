"""Clients that list an MCP server's tools, known by a type rather than by a call the code makes
(PRM203: `list_tools()` of such a client is a server's listing, methods._mcp_session): a client
class of the MCP SDK that an annotation names, and the item class of a container attribute that a
loop walks (`for name, wb in self._workbenches.items()` of a `Dict[str, McpWorkbench]`)."""
from __future__ import annotations

import ast

from .class_facts import optional_of, self_annotation
from .values import Obj

#: The MCP SDK's client classes whose `list_tools()` lists a server's tools.
_MCP_CLIENTS = frozenset({"ClientSession", "ClientSessionGroup"})


def mcp_sdk_instance(module, ann) -> Obj | None:
    """A client of the MCP SDK (`mcp.ClientSession`, `mcp.client.session.ClientSession`) that an
    annotation names (`session: ClientSession`, `self.client_session: ClientSession | None = None`),
    built where we cannot see: its `list_tools()` is a server's listing (methods._mcp_session);
    else None."""
    ann = optional_of(ann)
    if isinstance(ann, (ast.Name, ast.Attribute)):
        qual = module.qualified_name(ann) or ""
        if qual.startswith("mcp.") and qual.rsplit(".", 1)[-1] in _MCP_CLIENTS:
            return Obj(qual, span=module.span(ann), node=ann)
    return None


def item_annotation(frame, name: str):
    """The annotation of the items of the container attribute (`self._workbenches: Dict[str,
    McpWorkbench] = {}`) that a `for` loop of the frame's function walks with `name` as (part of)
    its target (`for key, wb in self._workbenches.items()`, `.values()`, `for wb in self._pool`):
    the dict's value type or the list's item type (`Optional` removed); else None."""
    for loop in (n for n in ast.walk(frame.func) if isinstance(n, (ast.For, ast.AsyncFor))):
        targets = loop.target.elts if isinstance(loop.target, ast.Tuple) else [loop.target]
        if not any(isinstance(t, ast.Name) and t.id == name for t in targets):
            continue
        it, view = loop.iter, ""
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr in ("items", "values") \
                and not it.args:
            it, view = it.func.value, it.func.attr
        if not (isinstance(it, ast.Attribute) and isinstance(it.value, ast.Name) and it.value.id == "self") \
                or frame.cls is None:
            return None
        ann = self_annotation(frame.cls, it.attr)
        if not isinstance(ann, ast.Subscript):
            return None
        args = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
        if view == "items" and (len(args) != 2 or not isinstance(loop.target, ast.Tuple)
                                or len(targets) != 2 or getattr(targets[1], "id", None) != name):
            return None
        return optional_of(args[-1])
    return None
