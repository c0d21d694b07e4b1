"""Cache breakpoints gated by a caching option that is off by default (`python/opt_in_markers.py`)
and names of a conversation's message list (`markers.names_conversation_list`)."""
from __future__ import annotations

import textwrap
from pathlib import Path

from promptlint.python import opt_in_markers
from promptlint.python.markers import names_conversation_list
from promptlint.python.tree import Project


def _gates(tmp_path: Path, source: str, **others: str) -> list[tuple[int, str]]:
    """The gates of module `m.py` holding `source`, in a package with the modules `others`."""
    (tmp_path / "__init__.py").write_text("")
    for name, text in others.items():
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(text))
    path = tmp_path / "m.py"
    path.write_text(textwrap.dedent(source))
    project = Project([tmp_path])
    return [(test.lineno, name) for test, name in opt_in_markers.opt_in_gates(project.load(path), project)]


def test_names_conversation_list():
    assert names_conversation_list("history_messages")
    assert names_conversation_list("chat_history_msgs")
    assert not names_conversation_list("max_history")
    assert not names_conversation_list("history_limit")
    assert not names_conversation_list("messages")


def test_attribute_none_in_init_set_under_an_off_test(tmp_path):
    assert _gates(tmp_path, '''
        class Model:
            def __init__(self, config=None):
                config = config or {}
                ttl = config.get("cache_ttl")
                self._cache = None
                if ttl:
                    self._cache = {"type": "ephemeral", "ttl": ttl}

            def run(self, blocks):
                if self._cache:
                    blocks[-1]["cache_control"] = self._cache
                return blocks
    ''') == [(11, "self._cache")]


def test_attribute_on_by_default_is_no_gate(tmp_path):
    assert _gates(tmp_path, '''
        class Model:
            def __init__(self, cache_system: bool = True):
                self.cache_system = cache_system

            def run(self, blocks):
                if self.cache_system:
                    blocks[-1]["cache_control"] = {"type": "ephemeral"}
                return blocks
    ''') == []


def test_init_parameter_none_through_a_method(tmp_path):
    assert _gates(tmp_path, '''
        class Model:
            def __init__(self, prompt_caching=None):
                self.prompt_caching = prompt_caching

            def _explicit_cache(self):
                return bool(self.prompt_caching and self.is_claude())

            def system(self, text):
                if self._explicit_cache():
                    return {"role": "system", "content": [{"type": "text", "text": text,
                                                          "cache_control": {"type": "ephemeral"}}]}
                return {"role": "system", "content": text}
    ''') == [(10, "self._explicit_cache()")]


def test_settings_key_and_its_and_chain(tmp_path):
    got = _gates(tmp_path, '''
        def tools_of(tools, settings):
            if tools and (ttl := settings.get("cache_tool_definitions")):
                tools[-1]["cache_control"] = {"type": "ephemeral", "ttl": ttl}
            return tools
    ''')
    assert got == [(3, "settings.get('cache_tool_definitions')")]


def test_settings_key_the_module_sets_is_no_gate(tmp_path):
    assert _gates(tmp_path, '''
        DEFAULTS = {"cache_tool_definitions": True}

        def tools_of(tools, settings):
            settings = {**DEFAULTS, **settings}
            if settings.get("cache_tool_definitions"):
                tools[-1]["cache_control"] = {"type": "ephemeral"}
            return tools
    ''') == []


def test_early_return_when_the_option_is_unset(tmp_path):
    assert _gates(tmp_path, '''
        class Model:
            def mark(self, messages):
                cache_config = self.config.get("cache_config")
                if not cache_config:
                    return messages
                messages[-1]["content"][-1]["cache_control"] = {"type": "ephemeral"}
                return messages
    ''') == [(5, "cache_config")]


def test_a_helper_parameter_is_what_its_callers_pass(tmp_path):
    assert _gates(tmp_path, '''
        def block(text, use_cache=False):
            if use_cache:
                return {"type": "text", "text": text, "cache_control": {"type": "ephemeral"}}
            return {"type": "text", "text": text}
    ''') == []


def test_a_test_that_names_no_cache_is_no_gate(tmp_path):
    assert _gates(tmp_path, '''
        class Model:
            def __init__(self, stream=None):
                self.stream = stream

            def run(self, blocks):
                if self.stream:
                    blocks[-1]["cache_control"] = {"type": "ephemeral"}
                return blocks
    ''') == []


def test_settings_key_another_module_turns_on_is_no_gate(tmp_path):
    assert _gates(tmp_path, '''
        def tools_of(tools, settings):
            if settings.get("cache_tool_definitions"):
                tools[-1]["cache_control"] = {"type": "ephemeral"}
            return tools
    ''', profiles='''
        def claude_settings():
            return dict(
                cache_tool_definitions=True,
            )
    ''') == []


def test_a_breakpoint_read_off_a_callers_message_is_carried_on_not_an_option(tmp_path):
    # an adapter that copies the `cache_control` a caller put on a message onto the block it writes
    assert _gates(tmp_path, '''
        def to_block(message):
            block = {"type": "tool_result", "content": message.content}
            cache_control = None
            if isinstance(message.additional_kwargs, dict):
                cache_control = message.additional_kwargs.get("cache_control")
            if cache_control:
                block["cache_control"] = cache_control
            return block
    ''') == []
    # a caching setting read with `get` that nobody sets is still off by default
    assert _gates(tmp_path, '''
        def to_block(message, settings):
            block = {"type": "text", "text": message.content}
            cache_on = settings.get("cache_messages")
            if cache_on:
                block["cache_control"] = {"type": "ephemeral"}
            return block
    ''') == [(5, "cache_on")]


def _rewritten(tmp_path: Path, source: str) -> list[int]:
    path = tmp_path / "r.py"
    path.write_text(textwrap.dedent(source))
    return [test.lineno for test in opt_in_markers.rewritten_marks(Project([tmp_path]).load(path))]


def test_a_callers_breakpoint_written_again_as_a_bare_one_is_a_fact_and_one_copied_is_not(tmp_path):
    assert _rewritten(tmp_path, '''
        def system_blocks(items):
            out = []
            for item in items:
                block = {"type": "text", "text": item["text"]}
                if item.get("cache_control"):
                    block["cache_control"] = {"type": "ephemeral"}
                out.append(block)
            return out

        def carried(items):
            out = []
            for item in items:
                block = {"type": "text", "text": item["text"]}
                mark = item.get("cache_control")
                if mark:
                    block["cache_control"] = mark
                out.append(block)
            return out
    ''') == [6]
