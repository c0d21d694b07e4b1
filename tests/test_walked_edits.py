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


def test_the_text_test_matches_as_the_patterns_written_from_each_word_did():
    """`might_edit`'s patterns start at the `[` and at `for` (module docstring of walked_edits):
    they match in the texts where `\\b\\w*messages\\[...` and `\\bfor\\b...` did."""
    import re
    from promptlint.python import walked_edits
    old_write = re.compile(r"\b(?:\w*(?:messages|history|contents|msgs)\[\w+\]|\w*(?:message|msg)\[[\"'][^\"'\n]{1,40}[\"']\])"
                           r"(?:\[[^\]]{1,60}\]|\.\w+)*[ \t]*[-+]?=(?!=)")
    old_loop = re.compile(r"\bfor\b[^\n]{1,80}\bin\b")
    texts = ["chat_messages[i] = m", "messages[i].content = x", "del history[k]", "msg['output']['url'] = u",
             "message[\"a\"] += 1", "messages[i] == m", "xmessages [i] = 1", "contents[0]\n= 1", "é_msgs[j] = 1",
             "for m in messages:", "before m in x", "for_each in x", "x.for y in z", "(for)in", ""]
    for text in texts:
        assert (walked_edits._WRITE_TEXT.search(text) is None) == (old_write.search(text) is None), text
        assert (walked_edits.TEXT.search(text) is None) == (old_loop.search(text) is None), text
    assert [walked_edits._WRITE_TEXT.search(t) is not None for t in texts[:9]] == [
        True, True, False, True, True, False, False, False, True]
    assert walked_edits.might_edit("for i, m in enumerate(messages):\n    chat_messages[i] = m\n") is True
    assert walked_edits.might_edit("for m in messages:\n    print(m)\n") is False
    assert walked_edits.might_edit("before m in x\nmessages[i] = 1\n") is False


def test_the_help_is_the_advice_the_message_ends_with(tmp_path):
    # (main: one ~100-word sentence whose advice, "leave sent messages as they are...", was not
    # the help shown under it, the rule's "Send the whole history, or cut it in steps")
    write(tmp_path, {"app.py": PICKED})
    found = [d for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics if d.code == "PRM105"]
    assert len(found) == 1
    assert found[0].advice == "Leave sent messages as they are and add a note after them, or rewrite only at a compaction"
    assert found[0].message.endswith("(the request that sends it is not linked here: how much it costs is not known)")
    assert len(found[0].message.split()) < 75
