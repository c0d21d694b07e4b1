"""Messages of the conversation a function is handed, edited in place as it walks them (PRM105,
python/walked_edits.py): info where the message is written, the pick or the walk related."""
from __future__ import annotations

from analysis_support import write

from promptlint import api

PICKED = """
    from typing import Any


    class Content:
        parts: list


    def prune_released(contents: list[Content], active: set[str]) -> None:
        for index, content in enumerate(contents):
            name = content.parts[0].name
            if name in active:
                continue
            contents[index] = Content()


    class Toolset:
        def before_request(self, request) -> None:
            prune_released(request.contents, set(self.active_names()))
"""

REPROCESSED = """
    from typing import Any, Dict, List


    class Loop:
        async def predict_step(self, messages: List[Dict[str, Any]], parser) -> list:
            for idx, message in enumerate(messages):
                if not isinstance(message, dict):
                    message = message.__dict__
                if message.get("type") == "computer_call_output":
                    image_url = message.get("output", {}).get("image_url", "")
                    image_data = image_url.split(",")[-1]
                    result = parser.parse(image_data)
                    message["output"][
                        "image_url"
                    ] = f"data:image/png;base64,{result.annotated}"
            return [dict(m) for m in messages]
"""


def _found(tmp_path, source):
    write(tmp_path, {"app.py": source})
    return [(d.code, d.severity.value, d.span.start.row, [r.span.start.row for r in d.related])
            for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics if d.code == "PRM105"]


def test_a_message_picked_by_a_callers_set_and_replaced_in_its_list_is_an_edit(tmp_path):
    assert _found(tmp_path, PICKED) == [("PRM105", "info", 13, [11])]


def test_a_message_picked_by_its_own_kind_alone_is_not(tmp_path):
    """Every message of a kind rewritten the same way, whatever the caller holds: a conversion."""
    assert _found(tmp_path, PICKED.replace("if name in active:", 'if name in ("a", "b"):')) == []


def test_a_copy_of_the_list_given_the_replacement_is_not(tmp_path):
    source = PICKED.replace("for index, content in enumerate(contents):",
                            "kept = list(contents)\n        for index, content in enumerate(kept):")
    assert _found(tmp_path, source.replace("contents[index] = Content()", "kept[index] = Content()")) == []


def test_the_newest_message_alone_is_not(tmp_path):
    source = PICKED.replace("if name in active:", "if name in active or index != len(contents) - 1:")
    assert _found(tmp_path, source) == []


def test_a_field_written_back_from_a_call_given_it_is_reprocessed_every_turn(tmp_path):
    assert _found(tmp_path, REPROCESSED) == [("PRM105", "info", 13, [6])]


def test_a_field_written_into_a_copy_of_the_message_is_not(tmp_path):
    source = REPROCESSED.replace("message = message.__dict__", "pass").replace(
        'if message.get("type")', 'message = dict(message)\n            if message.get("type")')
    assert _found(tmp_path, source) == []


def test_a_field_written_from_what_is_not_its_own_text_is_not(tmp_path):
    """The same value whatever the field held: written once, then the same on every call."""
    source = REPROCESSED.replace("result = parser.parse(image_data)", "result = parser.parse(PLACEHOLDER)")
    assert _found(tmp_path, source) == []


def test_a_message_marked_done_by_removing_a_field_is_processed_once(tmp_path):
    """The walk removes the field that asks for the processing: the next call skips the message."""
    source = REPROCESSED.replace('if message.get("type") == "computer_call_output":',
                                 'if message.pop("pending", None):')
    assert _found(tmp_path, source) == []


def test_a_field_written_back_from_a_validation_of_it_is_not(tmp_path):
    """A call named for validating (cleaning, formatting) the text gives back its own output unchanged."""
    source = REPROCESSED.replace("result = parser.parse(image_data)", "result = guard.validate_input(image_data)")
    assert _found(tmp_path, source) == []


def test_a_field_written_back_from_a_library_function_is_not(tmp_path):
    """`re.sub` of a fixed pattern gives back its own output unchanged."""
    source = REPROCESSED.replace("result = parser.parse(image_data)", "result = re.sub(r'x', '', image_data)")
    assert _found(tmp_path, "import re\n" + source) == []
