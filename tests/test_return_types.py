"""What a function's return annotation says it can return (python/return_types.py): a function
annotated to return no prompt text and no list that may hold messages is no prompt candidate, its
value not read; a type alias allows what its value allows."""
from __future__ import annotations

from types import SimpleNamespace

from analysis_support import code, evaluator, layouts, write

from promptlint.python.return_types import never_prompt

GUIDE = ("You are the booking assistant of a small chain of climbing gyms. Answer questions about "
         "opening hours, courses and gear rental. Never promise a slot you have not checked. ") * 2

TYPES = '''
    from dataclasses import dataclass
    from typing import Annotated, Union


    @dataclass
    class Request:
        parts: list


    @dataclass
    class Response:
        parts: list


    @dataclass
    class Turn:
        speaker: str
        body: str


    Exchange = Annotated[Request | Response, "kind"]
    Either = Union[Request, Response]
    Said = str
    ChatMessage = Annotated[Turn, "chat"]
    Made = make_type()
'''


def _never(tmp_path, returns: str, name: str = "build_messages", named: bool = True, role: str = "prompt") -> bool:
    write(tmp_path, {"app.py": code(TYPES) + f"\n\ndef {name}(history) -> {returns}:\n    return history\n"})
    ev = evaluator(tmp_path)
    module = ev.project.load(tmp_path / "app.py")
    finder = SimpleNamespace(m=module, ev=ev)
    return never_prompt(finder, module.functions[name], named, role)


def test_a_list_of_an_alias_of_a_union_of_plain_classes_holds_no_message(tmp_path):
    assert _never(tmp_path, "list[Exchange]") is True
    assert _never(tmp_path, "Sequence[Either]") is True


def test_a_list_of_an_alias_a_message_may_be_built_with_may_hold_messages(tmp_path):
    # `ChatMessage(...)` builds a `Turn`, which the evaluator reads as an object named ...Message
    assert _never(tmp_path, "list[ChatMessage]") is False


def test_an_alias_of_text_or_of_what_is_not_a_type_says_nothing(tmp_path):
    assert _never(tmp_path, "Said", name="system_prompt") is False
    assert _never(tmp_path, "list[Made]") is False
    assert _never(tmp_path, "list[Unknown]") is False


def test_a_function_annotated_with_an_alias_of_plain_classes_is_no_candidate(tmp_path):
    body = f'''
        def build_prompt(user) -> RETURNS:
            return f"{GUIDE} The member asking is {{user.name}}."
    '''
    found = layouts(tmp_path, code(TYPES) + code(body.replace("RETURNS", "Said")))
    assert [(lt.source, [p.role for p in lt.parts]) for lt in found] == [("python-constant", ["prompt"])]
    assert layouts(tmp_path, code(TYPES) + code(body.replace("RETURNS", "Exchange"))) == []
