"""`explain FILE:LINE` at a call named like an SDK's request that was not read as one says what the
call is and the facts of its receiver and arguments (python/unread_calls.py); the summary line
names the requests whose text holds nothing read, also those with no part at all, and does not
count as a prompt analysed a message list of parameters alone (fixtures/unread_calls)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from promptlint.cli import main
from promptlint.python.module import load
from promptlint.python.unread_calls import describe, unread_calls

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "unread_calls"


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """The fixture copied out of the repository: `explain` and `check` of one of its files read
    the project around it, which inside the repository is the whole repository."""
    return Path(shutil.copytree(FIXTURE, tmp_path_factory.mktemp("unread") / "unread_calls"))


def explain(monkeypatch, project: Path, where: str):
    monkeypatch.chdir(project)
    return CliRunner().invoke(main, ["explain", where, "--no-cache"])


def test_a_router_call_of_an_unknown_receiver_and_a_mapping_says_both(monkeypatch, project):
    result = explain(monkeypatch, project, "gateway.py:22")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "promptlint: no prompt found at gateway.py:22; the nearest prompts of this file are at lines 34 and 41",
        "promptlint: gateway.py:22:22: `entrypoint.acompletion(**completion_kwargs)` is named like a call of "
        "Anthropic or LiteLLM that sends or builds a prompt (`acompletion`) but was not read as one",
        "promptlint:   its receiver `entrypoint` is assigned at line 20 from `self._cached_router`, not known to be "
        "a client of Anthropic or LiteLLM; its keywords come from `**completion_kwargs`, a dict written at line 21 "
        "with the keys `messages`, `model` and the keys of `**self.options.extra`"]


def test_a_model_and_messages_passed_as_parameters_are_named_as_parameters(monkeypatch, project):
    result = explain(monkeypatch, project, "gateway.py:26")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[1:] == [
        "promptlint: gateway.py:26:18: `bound_model.ainvoke(messages, config)` is named like a call of LangChain "
        "that sends or builds a prompt (`ainvoke`) but was not read as one",
        "promptlint:   its receiver `bound_model` is the parameter `bound_model` of `extract`; its first argument "
        "`messages` is the parameter `messages` of `extract`"]


def test_a_post_whose_body_is_a_parameter_says_so(monkeypatch, project):
    result = explain(monkeypatch, project, "gateway.py:30")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[1:] == [
        "promptlint: gateway.py:30:12: `requests.post(url, json=data)` is named like a call of requests / httpx / "
        "aiohttp that sends or builds a prompt (`post`) but was not read as one",
        "promptlint:   its receiver `requests` is the module `requests`; its `json=` argument `data` is the "
        "parameter `data` of `post_chat`; its first argument `url` is the parameter `url` of `post_chat`"]


def test_a_line_with_no_call_named_like_a_request_keeps_the_one_line(monkeypatch, project):
    result = explain(monkeypatch, project, "gateway.py:10")  # `return importlib.import_module(name)`
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "promptlint: no prompt found at gateway.py:10; the nearest prompts of this file are at lines 34 and 41"]


def test_a_request_that_was_read_is_drawn_with_no_such_note(monkeypatch, project):
    result = explain(monkeypatch, project, "gateway.py:34")
    assert result.exit_code == 0
    # the framework whose call shape was read is named (the raw SDK's own calls need no such word)
    assert result.stdout.splitlines()[0] == "gateway.py:34  python-call | openai | litellm.completion | gpt-4o | via LiteLLM"
    assert "not read as one" not in result.output


def test_names_bound_in_branches_and_by_unpacking_are_given_with_their_lines(tmp_path):
    source = ("def run(self, state, flag):\n"
              "    if flag:\n"
              "        model = self.fast\n"
              "    else:\n"
              "        model = self.slow\n"
              "    messages, extra = self.setup(state)\n"
              "    return model.invoke(messages, **extra)\n")
    path = tmp_path / "run.py"
    path.write_text(source)
    calls = unread_calls(load(path, source, filename="run.py"), 7)
    assert [(c.name, c.sdks, c.matched) for c in calls] == [("invoke", ["LangChain"], True)]
    assert calls[0].reasons == [
        "its receiver `model` is assigned at lines 3, 5 from `self.fast`, `self.slow`",
        "its keywords come from `**extra` (which is assigned at line 6 from `self.setup(state)` (unpacked)), "
        "whose keys are not written at the call",
        "its first argument `messages` is assigned at line 6 from `self.setup(state)` (unpacked)"]
    assert describe(calls, "run.py")[0] == ("run.py:7:12: `model.invoke(messages, **extra)` is named like a call of "
                                            "LangChain that sends or builds a prompt (`invoke`) but was not read as one")
    assert unread_calls(load(path, source, filename="run.py"), 6) == []  # `self.setup(...)`: no SDK's name


def test_the_summary_counts_prompts_read_and_names_requests_with_no_part(monkeypatch, project):
    """A request whose messages are `*args` has no part: it holds no text read and is named; a message
    list of parameters alone (`pair`, line 46) is not a prompt analysed; one with text (line 52) is."""
    monkeypatch.chdir(project)
    result = CliRunner().invoke(main, ["check", "gateway.py", "--no-cache", "--ignore", "PRM301"])
    assert result.stdout.splitlines()[-2:] == [
        "No findings in 1 file checked; 3 prompts analysed.",
        "1 of them holds no text promptlint could read (built where it does not follow), so findings in that text "
        "may be missing (`promptlint explain` says why): gateway.py:41:12"]
    result = CliRunner().invoke(main, ["check", "gateway.py", "--no-cache", "--output-format", "json"])
    import json
    rows = [(p["id"], p["source"]) for p in json.loads(result.stdout)["prompts"]]
    # the JSON report lists the prompts the summary counts (one list): not the message list of line 46
    assert rows == [("gateway.py:34", "python-call"), ("gateway.py:41", "python-call"),
                    ("gateway.py:52", "python-constant")]


def test_the_summary_says_when_no_request_sends_the_prompts_built_in_python(tmp_path, monkeypatch):
    """Prompt text built in Python that no recognised request sends (another client library's
    `generate`) is judged alone: the summary says so, and says nothing once a request is read."""
    (tmp_path / "ask.py").write_text(
        'SYSTEM = "You are a careful analyst. " * 20\n\n'
        "def ask(gen, question):\n"
        '    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}]\n'
        "    return gen.generate(messages=messages)\n")
    monkeypatch.chdir(tmp_path)
    lines = CliRunner().invoke(main, ["check", ".", "--no-cache"]).stdout.splitlines()
    assert lines == [
        "No findings in 1 file checked; 1 prompt analysed.",
        "No request promptlint recognises sends the prompt text built in Python (the SDK calls it reads are "
        "listed in the README): that text is judged alone, so defects in how the requests order it may be "
        "missing (`promptlint explain FILE:LINE` at a call says why it is not read)"]
    (tmp_path / "send.py").write_text(
        "import openai\n\ndef send(q):\n"
        '    return openai.OpenAI().chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": q}])\n')
    lines = CliRunner().invoke(main, ["check", ".", "--no-cache"]).stdout.splitlines()
    assert lines == ["No findings in 2 files checked; 2 prompts analysed."]


def test_explain_at_a_request_with_no_part_read_says_what_its_arguments_are(tmp_path, monkeypatch):
    """A request read as the SDK's (the call's form matches) whose keywords all come from a
    `**mapping` has no part: the drawing says nothing of it was read, not that it starts with
    dynamic content, and the line after it says where the keywords come from."""
    (tmp_path / "send.py").write_text(
        "from openai import OpenAI\n\nclient = OpenAI()\n\n\n"
        "def send_request(parameters: dict):\n"
        "    return client.chat.completions.create(**parameters)\n")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["explain", "send.py:7", "--no-cache"])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[1].split() [:11] == ["--", "no", "part", "of", "this", "request", "was", "read:", "nothing", "is",
                                      "known"]
    assert "dynamic content" not in result.stdout
    assert lines[-1] == ("send.py:7: nothing of `client.chat.completions.create(**parameters)` was read: its keywords "
                         "come from `**parameters` (which is the parameter `parameters` of `send_request` (annotated "
                         "`dict`)), whose keys are not written at the call")


def test_an_unread_call_names_openai_once(tmp_path):
    """`create` is a call shape of OpenAI and of OpenAI before 1.0: the SDK is named once."""
    source = "def send(client, request):\n    return client.create(**request)\n"
    path = tmp_path / "send.py"
    path.write_text(source)
    [call] = unread_calls(load(path, source, filename="send.py"), 2)
    assert "OpenAI (before 1.0)" not in describe([call], "send.py")[0]
    assert describe([call], "send.py")[0].count("OpenAI") == 1


def test_a_class_of_another_library_named_like_an_sdks_says_where_it_comes_from(monkeypatch, project):
    """`Agent` imported from a library promptlint does not read: that is the reason, not its
    `**agent_kwargs` (a new user's trial: praisonaiagents' `Agent` was explained by its keywords)."""
    result = explain(monkeypatch, project, "other_agent.py:7")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[1:] == [
        "promptlint: other_agent.py:7:12: `Agent(instructions=RULES, llm=llm, **agent_kwargs)` is named like a call "
        "of OpenAI Agents SDK or CrewAI or ADK or pydantic-ai that sends or builds a prompt (`Agent`) but was not "
        "read as one",
        "promptlint:   `Agent` is imported from `teamkit`, not imported from `agents`, `crewai`, `google.adk`, "
        "`pydantic_ai`: promptlint does not read its requests",
    ]
