"""What a new user's trial found (session 25): a prompt text a helper builds and wrappers return is
one prompt, counted where it is built; the text summary and the JSON report count the same
prompts; `explain` names the framework whose call shape it read; `explain` of a loose file reads
the files beside it, not the tree under the current folder, and says so; a tools list joined from
two unordered sources names both, as its fix sorts both."""
from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from promptlint.api import check
from promptlint.cli import main
from promptlint.judged import prompts_analysed, references
from promptlint.scope import surroundings

WRAPPED = (
    "from datetime import datetime\n"                                   # 1
    "\n"                                                                # 2
    "\n"                                                                # 3
    "def base_prompt(user: str) -> str:\n"                              # 4
    "    return f'Today is {datetime.now().isoformat()}.\\n' + 'Follow the rules carefully. ' * 200\n"  # 5
    "\n"                                                                # 6
    "\n"                                                                # 7
    "def system_prompt(user: str) -> str:\n"                            # 8
    "    return base_prompt(user)\n"                                    # 9
    "\n"                                                                # 10
    "\n"                                                                # 11
    "def agent_prompt(who: str) -> str:\n"                              # 12
    "    return base_prompt(user=who)\n"                                # 13 (its own name for it)
    "\n"                                                                # 14
    "\n"                                                                # 15
    "def reviewer_prompt(user):\n"                                      # 16
    "    text = base_prompt(user)\n"                                    # 17
    "    return text\n"                                                 # 18
)


def _write(tmp_path: Path, monkeypatch, files: dict[str, str]) -> None:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)


def test_a_prompt_returned_by_wrappers_is_one_prompt_counted_where_it_is_built(tmp_path, monkeypatch):
    _write(tmp_path, monkeypatch, {"prompts.py": WRAPPED})
    report = check(["."])
    # the run reads the text at each function that returns it (explain can draw each)...
    assert sorted(p.id for p in report.prompts) == ["prompts.py:13", "prompts.py:18", "prompts.py:5", "prompts.py:9"]
    # ... and it is one prompt, where it is built, the others its references
    assert [p.id for p in prompts_analysed(report.prompts)] == ["prompts.py:5"]
    assert sorted(references(report.prompts).values()) == ["prompts.py:5"] * 3
    result = CliRunner().invoke(main, ["check", ".", "--no-cache", "--output-format", "json"])
    data = json.loads(result.stdout)
    assert [(p["id"], p["references"]) for p in data["prompts"]] == [
        ("prompts.py:5", ["prompts.py:13", "prompts.py:18", "prompts.py:9"])]
    assert [(d["code"], d["location"]["row"], d["prompt"]) for d in data["diagnostics"]] == [
        ("PRM102", 5, "prompts.py:5")]


def test_the_text_summary_and_the_json_report_count_the_same_prompts(tmp_path, monkeypatch):
    """A helper's text that a call sends, a message list of parameters alone, a wrapper's copy:
    the summary's count is the length of the JSON report's `prompts`, and every finding's
    `prompt` is one of them."""
    _write(tmp_path, monkeypatch, {
        "prompts.py": WRAPPED,
        "app.py": (
            "from openai import OpenAI\n"
            "from prompts import system_prompt\n"
            "\n"
            "client = OpenAI()\n"
            "\n"
            "\n"
            "def ask(question, history):\n"
            "    return client.chat.completions.create(model='gpt-4o', messages=[\n"
            "        {'role': 'system', 'content': system_prompt('x')}, *history, {'role': 'user', 'content': question}])\n"
            "\n"
            "\n"
            "def pair(a, b):\n"
            "    return [{'role': 'user', 'content': a}, {'role': 'assistant', 'content': b}]\n")})
    text = CliRunner().invoke(main, ["check", ".", "--no-cache"]).stdout
    data = json.loads(CliRunner().invoke(main, ["check", ".", "--no-cache", "--output-format", "json"]).stdout)
    summary = next(line for line in text.splitlines() if "analysed." in line)
    assert summary.endswith(f"; {len(data['prompts'])} prompt{'s' if len(data['prompts']) != 1 else ''} analysed.")
    assert [p["id"] for p in data["prompts"]] == ["app.py:8"]
    ids = {p["id"] for p in data["prompts"]}
    assert data["diagnostics"] and all(d["prompt"] in ids for d in data["diagnostics"])


FRAMEWORKS = (
    "import litellm\n"                                                                  # 1
    "from langchain_openai import ChatOpenAI\n"                                         # 2
    "from langchain_core.messages import SystemMessage, HumanMessage\n"                 # 3
    "from pydantic_ai import Agent\n"                                                   # 4
    "from openai import OpenAI\n"                                                       # 5
    "\n"                                                                                # 6
    "RULES = 'Answer politely. ' * 300\n"                                               # 7
    "llm = ChatOpenAI(model='gpt-4o')\n"                                                # 8
    "agent = Agent('openai:gpt-4o', system_prompt=RULES)\n"                             # 9
    "client = OpenAI()\n"                                                               # 10
    "\n"                                                                                # 11
    "\n"                                                                                # 12
    "def ask_lc(question):\n"                                                           # 13
    "    return llm.invoke([SystemMessage(content=RULES), HumanMessage(content=question)])\n"  # 14
    "\n"                                                                                # 15
    "\n"                                                                                # 16
    "def ask_litellm(question):\n"                                                      # 17
    "    return litellm.completion(model='anthropic/claude-3-5-sonnet-20241022', messages=[\n"  # 18
    "        {'role': 'system', 'content': RULES}, {'role': 'user', 'content': question}])\n"  # 19
    "\n"                                                                                # 20
    "\n"                                                                                # 21
    "def ask_raw(question):\n"                                                          # 22
    "    return client.chat.completions.create(model='gpt-4o', messages=[\n"            # 23
    "        {'role': 'system', 'content': RULES}, {'role': 'user', 'content': question}])\n"  # 24
    "\n"                                                                                # 25
    "\n"                                                                                # 26
    "def ask_agent(question):\n"                                                        # 27
    "    return agent.run_sync(question)\n"                                             # 28
)


def test_explain_names_the_framework_whose_call_shape_it_read(tmp_path, monkeypatch):
    _write(tmp_path, monkeypatch, {"app.py": FRAMEWORKS})

    def head(line: int) -> str:
        result = CliRunner().invoke(main, ["explain", f"app.py:{line}", "--no-cache"])
        assert result.exit_code == 0, result.output
        return result.stdout.splitlines()[0]

    assert head(9) == "app.py:9  python-call | openai | Agent | gpt-4o | via pydantic-ai"
    assert head(14) == "app.py:14  python-call | openai | langchain.invoke | gpt-4o | via LangChain"
    assert head(18) == "app.py:18  python-call | anthropic | litellm.completion | claude-3-5-sonnet-20241022 | via LiteLLM"
    assert head(23) == "app.py:23  python-call | openai | chat.completions.create | gpt-4o"  # the provider's own SDK
    result = CliRunner().invoke(main, ["explain", "app.py:14", "--no-cache", "--output-format", "json"])
    assert [p["sdk"] for p in json.loads(result.stdout)["prompts"]] == ["LangChain"]
    # the agent's send method: the prompt of the agent it is called on, read where the agent is built
    result = CliRunner().invoke(main, ["explain", "app.py:28", "--no-cache"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "app.py:9  python-call | openai | Agent | gpt-4o | via pydantic-ai"
    assert result.stderr == ("promptlint: app.py:28: `agent.run_sync(question)` sends the prompt of the object "
                             "built at line 9, drawn below\n")


def test_explain_of_a_loose_file_reads_the_files_beside_it_and_says_so(tmp_path, monkeypatch):
    """No project marker and no package: `explain helpers.py:LINE` reads the Python files beside
    it (the request that sends the helper's text is one of them), not the folders under the
    current one, and says so on stderr."""
    helpers = ("from datetime import datetime\n\nRULES = 'Answer politely and precisely. ' * 300\n\n\n"
               "def system_prompt():\n    return f'Now: {datetime.now()}\\n{RULES}'\n")
    app = ("from openai import OpenAI\nfrom helpers import system_prompt\n\nclient = OpenAI()\n\n\n"
           "def ask(question, history):\n    return client.chat.completions.create(model='gpt-4o', messages=[\n"
           "        {'role': 'system', 'content': system_prompt()}, *history, {'role': 'user', 'content': question}])\n")
    _write(tmp_path, monkeypatch, {"helpers.py": helpers, "app.py": app, "deep/er/other.py": app,
                                   "templates/answer.j2": "Answer {{ question }}\n"})
    paths, note = surroundings(Path("helpers.py"))
    assert paths == [Path("helpers.py"), Path("app.py")]
    assert note == ("helpers.py is in no project (no .git, pyproject.toml, promptlint.toml above it) and in no "
                    "package: read with the 1 other Python file in `.`, not the 2 folders under it (name a folder, "
                    "or run in one with a pyproject.toml, to read more)")
    # a template: the files of its folder and of the folder above (where the code that renders it is)
    assert surroundings(Path("templates/answer.j2"))[0] == [Path("templates/answer.j2"), Path("app.py"),
                                                           Path("helpers.py")]
    result = CliRunner().invoke(main, ["explain", "helpers.py:7", "--no-cache"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "app.py:8  python-call | openai | chat.completions.create | gpt-4o"
    assert result.stderr.splitlines() == [f"promptlint: {note}"]
    # with a project marker, the project is read, and nothing is said
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    assert surroundings(Path("helpers.py")) == ([Path(".")], None)
    result = CliRunner().invoke(main, ["explain", "helpers.py:7", "--no-cache"])
    assert result.exit_code == 0 and result.stderr == ""


def test_a_tools_list_of_two_unordered_sources_names_both(tmp_path, monkeypatch):
    _write(tmp_path, monkeypatch, {"app.py": (
        "from openai import OpenAI\n"                                                          # 1
        "\n"                                                                                   # 2
        "client = OpenAI()\n"                                                                  # 3
        "\n"                                                                                   # 4
        "\n"                                                                                   # 5
        "def ask(question, history, local: set[str], remote: set[str]):\n"                     # 6
        "    tools = [{'type': 'function', 'function': {'name': n}} for n in local] + \\\n"     # 7
        "        [{'type': 'function', 'function': {'name': n}} for n in remote]\n"             # 8
        "    return client.chat.completions.create(model='gpt-4o', tools=tools, messages=[\n"   # 9
        "        {'role': 'system', 'content': 'Be brief. ' * 400}, *history, {'role': 'user', 'content': question}])\n"
        "\n"
        "\n"
        "def ask2(question, history, local: set[str], remote: set[str]):\n"                    # 13
        "    return client.chat.completions.create(model='gpt-4o', tools=list(local) + list(remote), messages=[\n"
        "        {'role': 'system', 'content': 'Be brief. ' * 400}, *history, {'role': 'user', 'content': question}])\n")})
    found = [d for d in check(["."]).diagnostics if d.code == "PRM203"]
    assert [(d.span.start.row, d.span.start.column) for d in found] == [(9, 65), (14, 70)]
    for d in found:
        assert "by `local` (the parameter `local` is annotated `local: set[str]`" in d.message
        assert "and by `remote` (the parameter `remote` is annotated `remote: set[str]`" in d.message
        assert d.message.endswith("; one sort of the whole list fixes every source")
    assert [(r.span.start.row, r.span.start.column) for r in found[0].related
            if r.message == "another unordered source of this tool list"] == [(8, 65)]  # `remote`
    assert [(r.span.start.row, r.span.start.column) for r in found[1].related
            if r.message == "another unordered source of this tool list"] == [(14, 84)]
    # the fix (shown: the tools' shape is not seen) sorts the whole list: both sources
    edits = found[1].fix.edits
    assert [(e.start.column, e.content[:7]) for e in edits] == [(65, "sorted("), (91, ", key=l")]
