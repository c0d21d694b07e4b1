"""Which strings of a YAML / TOML file (and of a `.prompt` file of YAML fields) are prompts, by
their content and structure, not only by the file's name (templates/config_strings/prompts.py
`SIGNALS`; templates/data_files.py): template text kept under a key for text (`value: |` of a
prompt kept with its metadata), a file the project's Python names by a path it builds, a
dataset's entries (no prompts), and ordinary config files (CI workflows, docker-compose, mkdocs,
OpenAPI, k8s manifests, pyproject, a dataset of labelled examples) that stay silent. `explain`
says why a string is not read. The fixtures are copied out of the repository first: its folder
names and its own Python would otherwise count as the project's."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from promptlint import api
from promptlint.cli import main
from promptlint.model import Position
from promptlint.templates import config_prompts, layouts_for_file
from promptlint.templates.config_strings.prompts import judged_strings
from promptlint.templates.data_files import yaml_fields
from promptlint.templates.unread import why_not_read

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "config_kinds"
DATA = Path("datasets")


@pytest.fixture
def kinds(tmp_path: Path) -> Path:
    return shutil.copytree(FIXTURES, tmp_path / "kinds")


def _layouts(path: Path):
    return layouts_for_file(path, path.name, path.read_text(encoding="utf-8"))


def _dynamic(prompt):
    return [s for s in prompt.segments if s.kind is not None]


def test_a_value_of_template_text_with_declared_placeholders_is_a_prompt(kinds):
    path = kinds / "redteam" / DATA / "executors/crescendo/escalation.yaml"
    (prompt,) = config_prompts(path, path.name, path.read_text(encoding="utf-8"))
    assert prompt.keys == ["value"] and prompt.key_span.start == Position(10, 1)
    assert [p.role for p in prompt.parts] == ["prompt"]  # its place in a request is not known: no "system prompt"
    assert [(s.expr, s.span.start) for s in _dynamic(prompt)] == [
        ("objective", Position(12, 36)), ("max_turns", Position(12, 68))]
    # `description: |` beside it is metadata, not a prompt
    described = next(j for j in judged_strings(path, path.name, path.read_text()) if j.keys == ["description"])
    assert described.prompt is None and described.reason.startswith("neither its key")


def test_the_per_objective_template_before_its_static_rules_is_found(kinds):
    report = api.check([kinds / "redteam"], api.Settings(), jobs=1)
    found = [(Path(d.span.filename).name, d.code, d.severity.value, d.span.start.row, d.span.start.column)
             for d in report.diagnostics]
    assert found == [("escalation.yaml", "PRM101", "info", 12, 36)]


def test_template_text_needs_declared_placeholders_or_text_that_speaks_to_a_model(tmp_path):
    body = ("  Release {version} of the service brings a new storage backend, faster start-up on large\n"
            "  installations, a rewritten command line with completion for every shell, and many fixes that\n"
            "  users reported over the last months; the old storage keys are no longer read after it.\n")
    plain = tmp_path / "notes.yaml"
    plain.write_text("text: |\n" + body, encoding="utf-8")
    assert config_prompts(plain, plain.name, plain.read_text()) == []
    declared = tmp_path / "declared.yaml"
    declared.write_text("parameters:\n  - version\ntext: |\n" + body, encoding="utf-8")
    assert [p.keys for p in config_prompts(declared, declared.name, declared.read_text())] == [["text"]]
    other = tmp_path / "other.yaml"  # the declared names are not the text's
    other.write_text("parameters:\n  - objective\ntext: |\n" + body, encoding="utf-8")
    assert config_prompts(other, other.name, other.read_text()) == []
    spoken = tmp_path / "spoken.yaml"
    spoken.write_text("text: |\n" + body + "  You answer the user's questions about it; your answers are short, and you cite the notes.\n",
                      encoding="utf-8")
    assert [p.keys for p in config_prompts(spoken, spoken.name, spoken.read_text())] == [["text"]]
    short = tmp_path / "short.yaml"  # one line, or few words: a setting, not a prompt kept as text
    short.write_text("parameters: [objective]\nvalue: Reach {{objective}} now, you and your team, as you can.\n",
                     encoding="utf-8")
    assert config_prompts(short, short.name, short.read_text()) == []


def test_a_toml_value_of_template_text_is_a_prompt(tmp_path):
    path = tmp_path / "judge.toml"
    path.write_text('parameters = ["answer"]\nvalue = """\nYou grade the answer below for a careful reader.\n'
                    'Answer: {answer}\n' + "Grade it on accuracy, clarity and brevity, and explain the grade in "
                    "two sentences that name the weakest part.\n" * 3 + '"""\n', encoding="utf-8")
    (prompt,) = config_prompts(path, path.name, path.read_text())
    assert prompt.keys == ["value"] and [(s.expr, s.span.start) for s in _dynamic(prompt)] == [
        ("{answer}", Position(4, 9))]


def test_static_text_is_read_when_the_project_names_its_file_by_a_built_path(kinds):
    converters = kinds / "redteam" / DATA / "converters"
    (science,) = _layouts(converters / "science.yaml")  # `Path(DATASETS) / "converters" / "science.yaml"`
    assert (science.id, science.source, science.parts[0].role) == ("science.yaml:4", "config-string", "prompt")
    assert _layouts(converters / "unnamed.yaml") == []  # no Python names it
    (kinds / "redteam/attacks/science.py").write_text(
        "import os\n\nHERE = os.path.dirname(__file__)\nPATH = os.path.join(HERE, '..', 'datasets', 'converters', "
        "'unnamed.yaml')\n", encoding="utf-8")
    from promptlint.templates import forget_project_readings
    forget_project_readings()
    assert [lay.id for lay in _layouts(converters / "unnamed.yaml")] == ["unnamed.yaml:4"]
    assert _layouts(converters / "science.yaml") == []  # no longer named


def test_a_dataset_of_seeds_in_a_prompt_file_is_no_prompt(kinds):
    seeds = kinds / "redteam" / DATA / "seed_datasets"
    harms = seeds / "harms.prompt"
    assert yaml_fields(harms, harms.read_text()) is True
    assert _layouts(harms) == []  # before: the whole YAML text was a "system prompt"
    why = why_not_read(harms, harms.read_text(), 16, "prompt-text")
    assert why == ["`seeds.2.value` (lines 12-16) is not read as a prompt: it is in an entry of the list `seeds` "
                   "(3 entries), a list of records (a dataset's items, steps), not a prompt: only a key that names a "
                   "prompt (`system_prompt`, `instructions`, `*_prompt`) makes the text of such an entry one"]
    # prompt text that happens to parse as YAML stays prompt text
    for name in ("ask.prompt", "fields.prompt"):
        assert yaml_fields(seeds / name, (seeds / name).read_text()) is False
        (layout,) = _layouts(seeds / name)
        assert layout.source == "prompt-text"


def test_a_list_of_named_prompts_is_no_dataset(tmp_path):
    path = tmp_path / "rails.yml"
    path.write_text("prompts:\n  - task: generate_user_intent\n    content: |\n      Decide what the user wants.\n"
                    "      {{ history }}\n  - task: generate_bot_message\n    content: Write the next message now.\n",
                    encoding="utf-8")
    prompts = config_prompts(path, path.name, path.read_text())
    assert [(p.keys, p.names) for p in prompts] == [
        (["prompts", 0, "content"], ["generate_user_intent"]), (["prompts", 1, "content"], ["generate_bot_message"])]


ORDINARY = [".github/workflows/release.yml", "docker-compose.yml", "mkdocs.yml", "k8s/deployment.yaml",
            "api/openapi.yaml", "examples.yaml", "pyproject.toml"]


@pytest.mark.parametrize("name", ORDINARY)
def test_ordinary_config_files_hold_no_prompt(kinds, name):
    assert _layouts(kinds / "ordinary" / name) == []


def test_ordinary_config_files_stay_silent(kinds):
    report = api.check([kinds / "ordinary"], api.Settings(), jobs=1)
    assert report.diagnostics == [] and report.prompts == []


def test_explain_says_why_a_string_of_a_config_file_is_not_a_prompt(kinds, monkeypatch):
    monkeypatch.chdir(kinds)
    crescendo = "redteam/datasets/executors/crescendo/escalation.yaml"
    result = CliRunner().invoke(main, ["explain", f"{crescendo}:3", "--no-cache"])
    assert result.exit_code == 2
    assert result.stderr.splitlines()[1] == (
        "promptlint: `description` (lines 2-3) is not read as a prompt: neither its key (not one that names a "
        "prompt, as `system_prompt`, `instructions`, `*_prompt`, `*_template`, nor one for text: `value`, `text`, "
        "`body`) nor the file's name or folders say prompt")
    result = CliRunner().invoke(main, ["explain", "redteam/datasets/converters/unnamed.yaml:6", "--no-cache"])
    assert result.stderr.splitlines()[1] == (
        "promptlint: `value` (lines 4-9) is not read as a prompt: its text has no template placeholder (`{{x}}`, "
        "`{x}`, `${x}`) and no Python file of the project names `unnamed.yaml`")
    result = CliRunner().invoke(main, ["explain", "ordinary/mkdocs.yml", "--no-cache"])
    assert any("`extra.announcement.text` (lines 17-22) is not read as a prompt: its text has placeholders "
               "(`version`), but neither" in line for line in result.stderr.splitlines())
    result = CliRunner().invoke(main, ["explain", f"{crescendo}:12", "--no-cache"])
    assert result.exit_code == 0 and result.stdout.startswith(f"{crescendo}:10\n  config-string")


def test_an_entry_point_is_no_prompt_whatever_its_key_says(tmp_path):
    path = tmp_path / "pyproject.toml"
    path.write_text('[project.scripts]\nprompt-template = "trustgraph.prompt.template:run"\n'
                    'system_prompt = "app.prompts:main"\n[tool.app]\nsystem_prompt = "You answer billing questions."\n',
                    encoding="utf-8")
    # the `*_template` / `system_prompt` keys of entry points name code; the last one is text
    (prompt,) = config_prompts(path, path.name, path.read_text())
    assert prompt.keys == ["tool", "app", "system_prompt"]
    assert why_not_read(path, path.read_text(), 2, "config") == [
        "`project.scripts.prompt-template` (line 2) is not read as a prompt: its value names a Python object "
        "(`module:function`, an entry point), not prompt text"]
