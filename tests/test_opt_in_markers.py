"""Cache breakpoints gated by a caching option that is off by default (`python/opt_in_markers.py`)
and names of a conversation's message list (`markers.names_conversation_list`)."""
from __future__ import annotations

import textwrap
from pathlib import Path

from promptlint.python import opt_in_markers
from promptlint.python.markers import names_conversation_list
from promptlint.python.tree import Project


def _gates(tmp_path: Path, source: str, **others: str) -> list[tuple[int, str]]:
    """The gates of module `m.py` holding `source`, in a package with the modules `others`: a
    package folder of its own (`_own_package`), since the text searches read the whole folder
    that holds the package (with `tmp_path` itself the package, that was pytest's session folder
    of every test's files: 0.75-2.5 s a test late in the suite)."""
    if [p.name for p in tmp_path.parent.iterdir()] != [tmp_path.name]:  # not yet a folder of its own
        tmp_path = tmp_path / "own" / "pkg"
        tmp_path.mkdir(parents=True, exist_ok=True)
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


def test_a_flag_passed_to_a_helper_that_marks_two_calls_down(tmp_path):
    assert _gates(tmp_path, '''
        def _mark(msg):
            msg["content"][-1]["cache_control"] = {"type": "ephemeral"}

        def _mark_all(msgs):
            for m in msgs:
                _mark(m)

        def mk_msgs(msgs, cache=False):
            if cache:
                _mark_all(msgs)
            return msgs

        class Chat:
            def __init__(self, model, cache=False):
                self.model, self.cache = model, cache

            def send(self, msgs):
                return mk_msgs(msgs, self.cache and "claude" in self.model)
    ''') == [(19, "self.cache")]


def test_a_flag_on_by_default_or_a_constant_true_is_no_gate(tmp_path):
    assert _gates(tmp_path, '''
        def mk_msgs(msgs, cache=False):
            if cache:
                msgs[-1]["cache_control"] = {"type": "ephemeral"}
            return msgs

        class Chat:
            def __init__(self, cache=True):
                self.cache = cache

            def send(self, msgs):
                return mk_msgs(msgs, cache=self.cache), mk_msgs(msgs, True)
    ''') == []


def test_store_attr_gives_the_attribute_its_parameters_default(tmp_path):
    source = '''
        from fastcore.basics import store_attr

        class Chat:
            def __init__(self, model, cache=False):
                store_attr({})

            def send(self, msgs):
                if self.cache:
                    msgs[-1]["cache_control"] = {{"type": "ephemeral"}}
                return msgs
    '''
    assert _gates(tmp_path, source.format("")) == [(9, "self.cache")]
    assert _gates(tmp_path, source.format('"model,cache"')) == [(9, "self.cache")]
    assert _gates(tmp_path, source.format('"model"')) == []  # `cache` is not stored: not known


def test_a_function_patched_into_a_class_reads_its_attributes(tmp_path):
    assert _gates(tmp_path, '''
        import anthropic
        from msglm import mk_msgs_anthropic as mk_msgs

        class Client:
            def __init__(self, cache=False):
                self.cache = cache

        def _precall(self: Client, msgs):
            return mk_msgs(msgs, cache=self.cache)
    ''') == [(10, "self.cache")]


def test_a_library_builder_of_another_kind_is_no_gate(tmp_path):
    assert _gates(tmp_path, '''
        import anthropic
        from diskcache import fetch_all

        class Client:
            def __init__(self, cache=False):
                self.cache = cache

            def send(self, msgs):
                return fetch_all(msgs, cache=self.cache)  # not a message builder
    ''') == []


def test_a_field_of_the_modules_options_off_by_default(tmp_path):
    source = '''
        from pydantic import BaseModel, Field

        class Options(BaseModel):
            cache: bool | None = Field(description="prompt cache", default={})

        def build(prompt, messages):
            if prompt.options.cache and messages:
                messages[-1]["content"][-1]["cache_control"] = {{"type": "ephemeral"}}
            return messages
    '''
    # (each package in a folder of its own: the package tree searched for other settings is the
    # folder that holds the package, which for `tmp_path` itself holds every other test's folder)
    for name in ("off", "on", "set"):
        (tmp_path / name / "pkg").mkdir(parents=True)
    assert _gates(tmp_path / "off" / "pkg", source.format("None")) == [(8, "prompt.options.cache")]
    assert _gates(tmp_path / "on" / "pkg", source.format("True")) == []
    assert _gates(tmp_path / "set" / "pkg", source.format("None"), cli='''
        def run(model, prompt):
            return model.prompt(
                prompt,
                cache=True,
            )
    ''') == []  # another module of the package sets it


def test_a_top_level_automatic_breakpoint_caches_with_the_defaults(tmp_path):
    assert _gates(tmp_path, '''
        class Chat:
            def __init__(self, client, cache_blocks=False):
                self.client, self.cache_blocks = client, cache_blocks

            def send(self, msgs):
                if self.cache_blocks:
                    msgs[-1]["cache_control"] = {"type": "ephemeral"}
                return self.client.messages.create(messages=msgs, cache_control={"type": "ephemeral"})
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


def _own_package(tmp_path):
    """A package folder of its own (`tmp_path/own/pkg`): the tree searched is the folder that holds it."""
    folder = tmp_path / "own" / "pkg"
    folder.mkdir(parents=True)
    return folder


#: A loop whose step marks the newest message when its `use_cache` parameter (off by default) is on.
_MARKING_LOOP = '''
        class Loop:
            def step(self, messages, use_cache=False):
                if use_cache:
                    messages[-1]["cache_control"] = {"type": "ephemeral"}
                return messages
    '''


def test_a_helper_parameter_the_package_only_passes_on_from_an_off_option_is_off(tmp_path):
    tmp_path = _own_package(tmp_path)
    loop = '''
        def add_marks(messages):
            for m in messages[-1:]:
                m["cache_control"] = {"type": "ephemeral"}
            return messages

        class Loop:
            def step(self, messages, use_cache=False):
                if use_cache:
                    messages = add_marks(messages)
                return messages
    '''
    agent = '''
        class Agent:
            def __init__(self, loop, use_cache=False):
                self.loop, self.use_cache = loop, use_cache

            def run(self, messages):
                return self.loop.step(messages, **{"use_cache": self.use_cache})
    '''
    cli = '''
        def main(args, loop):
            kwargs = {}
            if args.cache:
                kwargs["use_cache"] = True
            return loop.step([], use_cache=False, **kwargs)
    '''
    assert _gates(tmp_path, loop, agent=agent, cli=cli) == [(9, "use_cache")]


def test_a_helper_parameter_the_package_turns_on_is_no_gate(tmp_path):
    tmp_path = _own_package(tmp_path)
    loop = _MARKING_LOOP
    agent = '''
        class Agent:
            def __init__(self, loop, use_cache=True):
                self.loop, self.use_cache = loop, use_cache

            def run(self, messages):
                return self.loop.step(messages,
                                      use_cache=self.use_cache)
    '''
    assert _gates(tmp_path, loop, agent=agent) == []
    always = '''
        def run(loop, messages):
            return loop.step(messages,
                             use_cache=True)
    '''
    assert _gates(tmp_path, loop, agent=always) == []


def test_a_helper_parameter_given_true_by_position_is_no_gate(tmp_path):
    tmp_path = _own_package(tmp_path)
    loop = '''
        def mark(messages, use_cache=False):
            if use_cache:
                messages[-1]["cache_control"] = {"type": "ephemeral"}
            return messages

        def run(messages, use_cache=False):
            return mark(messages, use_cache=use_cache), mark(messages, True)
    '''
    assert _gates(tmp_path, loop) == []


def test_a_helper_parameter_given_true_by_position_elsewhere_is_no_gate(tmp_path):
    tmp_path = _own_package(tmp_path)
    loop = _MARKING_LOOP
    agent = '''
        class Agent:
            def __init__(self, loop, use_cache=False):
                self.loop, self.use_cache = loop, use_cache

            def run(self, messages):
                return self.loop.step(messages, use_cache=self.use_cache), self.loop.step(messages, True)
    '''
    assert _gates(tmp_path, loop, agent=agent) == []


def test_a_helper_parameter_a_caller_sets_from_another_value_is_no_gate(tmp_path):
    tmp_path = _own_package(tmp_path)
    convert = '''
        def convert(params, cache_marks=False):
            out = [part(p, cache_marks=cache_marks) for p in params]
            if cache_marks:
                out[-1]["cache_control"] = {"type": "ephemeral"}
            return out

        def part(p, cache_marks=False):
            return p
    '''
    passed_on = '''
        class Provider:
            def __init__(self, cache_marks=False):
                self.cache_marks = cache_marks

            def send(self, params):
                return convert(params, cache_marks=self.cache_marks)
    '''
    assert _gates(tmp_path, convert, provider=passed_on) == [(4, "cache_marks")]
    set_on = '''
        class Provider:
            READS_SIDE_CHANNEL = True

            def send(self, params):
                return convert(params, cache_marks=self.READS_SIDE_CHANNEL)
    '''
    assert _gates(tmp_path, convert, provider=set_on) == []


def test_a_breakpoint_key_read_from_a_mapping_named_as_configuration_is_an_option(tmp_path):
    # (before: any `.get("cache_control")` was a breakpoint carried on, so a TTL option kept in the
    # model's configuration under that key, None by default, hid the gate of every breakpoint)
    source = '''
        class ClaudeModel:
            def __init__(self, model_config_dict=None):
                model_config_dict = model_config_dict or {}
                cache_control = model_config_dict.get("cache_control")
                self._cache_control_config = None
                if cache_control:
                    self._cache_control_config = {"type": "ephemeral", "ttl": cache_control}

            def run(self, system, messages):
                params = {"messages": messages}
                if self._cache_control_config:
                    params["system"] = [{"type": "text", "text": system, "cache_control": self._cache_control_config}]
                else:
                    params["system"] = system
                return params
    '''
    assert _gates(tmp_path, source, config='''
        class ClaudeConfig:
            cache_control: str | None = None
    ''') == [(12, "self._cache_control_config")]
    # the same key read off a message the code is handed is the caller's breakpoint, carried on
    assert _gates(tmp_path, source.replace("model_config_dict.get(", "model_message.get(")) == []
