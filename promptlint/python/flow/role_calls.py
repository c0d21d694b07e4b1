"""Calls of a helper named for the message it makes (`self.system_message(text)`,
`make_user_msg(text)`): the role its name says and the expression of the content it is given,
read once per call node (`CallsMixin.role_message` builds the message from them)."""
from __future__ import annotations

import ast
import re

from ..module import callee_name


def role_call(node: ast.Call) -> tuple[str, ast.expr] | None:
    """(role, content expression) of a call of a helper named for the message it makes
    (`role_message`), else None; read once per call node (kept on it: trees are never changed
    after parsing, and every reading of a call asks it)."""
    known = getattr(node, "_promptlint_role_call", False)
    if known is not False:
        return known
    found = _ROLE_HELPER.match(callee_name(node))
    content = None
    if found is not None:
        if node.args:  # `system_message(text)`, or `system_message(content=text)`
            content = node.args[0] if len(node.args) == 1 and not node.keywords else None
        else:
            content = next((k.value for k in node.keywords if k.arg in ("content", "message", "text")), None)
    if content is None or isinstance(content, ast.Starred):
        known = None
    else:
        known = (_ROLE_WORDS.get(found.group(1).lower(), found.group(1).lower()), content)
    node._promptlint_role_call = known
    return known


#: A helper named for the message it makes: `system_message`, `user_msg`, `create_assistant_message`.
_ROLE_HELPER = re.compile(r"^(?:_?(?:make|create|build|new|to|as|get)_)?(system|user|assistant|human|ai|developer)_?(?:message|msg)$",
                          re.IGNORECASE)
_ROLE_WORDS = {"human": "user", "ai": "assistant"}
