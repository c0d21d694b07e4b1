"""A conversation rebound to its newest messages and then handed on (PRM105,
python/rebound_windows.py): info where it is cut; nothing when the window is never handed on."""
from __future__ import annotations

from analysis_support import write

from promptlint import api

CLASSIFIER = """
    from base import Classifier


    class WindowedClassifier(Classifier):
        def __init__(self, max_history_messages=20):
            self.max_history_messages = max_history_messages

        async def classify(self, input_text, chat_history):
            chat_history = chat_history[{cut}] if self.max_history_messages else []
            {use}
"""

BASE = """
class Classifier:
    async def classify(self, input_text, chat_history):
        return await self.process(input_text, chat_history)
"""


def _found(tmp_path, files):
    write(tmp_path, files)
    return [(d.code, d.severity.value, d.span.start.row, d.span.start.column)
            for d in api.check([tmp_path], api.Settings(), jobs=1).diagnostics]


def _classifier(tmp_path, cut, use):
    return _found(tmp_path, {"windowed.py": CLASSIFIER.format(cut=cut, use=use), "base.py": BASE})


def test_a_conversation_rebound_to_its_newest_messages_and_handed_on_is_a_window(tmp_path):
    assert _classifier(tmp_path, "-self.max_history_messages:",
                       "return await super().classify(input_text, chat_history)") == [("PRM105", "info", 9, 24)]


def test_a_window_only_counted_or_logged_or_the_whole_conversation_handed_on_is_none(tmp_path):
    use = "print(len(chat_history))\n            return await super().classify(input_text, [])"
    assert _classifier(tmp_path, "-self.max_history_messages:", use) == []
    use = "if len(set(chat_history)) < 2:\n                return None"
    assert _classifier(tmp_path, "-self.max_history_messages:", use) == []
    assert _classifier(tmp_path, ":", "return await super().classify(input_text, chat_history)") == []
    assert _classifier(tmp_path, "-2:", "return await super().classify(input_text, chat_history)") == []


MIDDLEWARE = """
    _MAX_MESSAGES = 30


    class Guard:
        def requests(self, request):
            {name} = request.state.get("{key}", [])[-_MAX_MESSAGES:]
            with_images = [strip(m, keep_images=True) for m in {name}]
            text_only = [strip(m, keep_images=False) for m in {name}]
            variants = [text_only] if with_images == text_only else [with_images, text_only]
            return [self.decision(request, variant) for variant in variants]

        def decision(self, request, messages):
            return {{"input": {{"messages": messages}}}}


    def strip(message, keep_images):
        return message
"""


def test_a_window_converted_message_by_message_and_returned_is_handed_on(tmp_path):
    assert _found(tmp_path, {"guard.py": MIDDLEWARE.format(name="messages", key="messages")}) == [("PRM105", "info", 6, 20)]


def test_the_newest_items_of_a_list_not_named_for_the_conversation_are_no_window(tmp_path):
    assert _found(tmp_path, {"guard.py": MIDDLEWARE.format(name="scores", key="scores")}) == []


PLUGIN = """
    from google.adk.models import LlmRequest
    from google.genai import types


    class ContextFilter:
        '''Keeps the newest invocations of the conversation history sent to the model.'''

        def __init__(self, keep=None):
            self.keep = keep

        async def before_model_callback(self, *, callback_context, llm_request: LlmRequest):
            contents: list[types.Content] = llm_request.contents
            if self.keep:
                starts = [i for i, c in enumerate(contents) if c.role == "user"]
                if len(starts) > self.keep:
                    split = starts[{start}]
                    split = adjust(contents, split)
                    contents = contents[split:]
            llm_request.contents = contents
            return None


    def adjust(contents, split):
        return split
"""


def test_a_conversation_cut_from_its_kth_newest_turn_into_the_request_it_was_handed_is_a_window(tmp_path):
    assert _found(tmp_path, {"plugin.py": PLUGIN.format(start="-self.keep")}) == [("PRM105", "info", 18, 28)]


def test_a_conversation_cut_from_its_last_user_message_is_no_window(tmp_path):
    assert _found(tmp_path, {"plugin.py": PLUGIN.format(start="-1")}) == []
