"""Configuration: discovery, keys, rule selection (ruff's resolution) and per-file-ignores."""
from __future__ import annotations

from pathlib import Path

import pytest

from promptlint.config import (ConfigError, Settings, expand_selectors, find_config,
                               load_settings)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# --- discovery ---------------------------------------------------------------------------------

def test_find_config_takes_nearest_pyproject_with_table(tmp_path):
    write(tmp_path / "pyproject.toml", "[tool.promptlint]\nselect = ['PRM1']\n")
    write(tmp_path / "pkg" / "pyproject.toml", "[tool.black]\nline-length = 100\n")
    app = write(tmp_path / "pkg" / "app" / "chat.py", "x = 1\n")
    assert find_config([app]) == tmp_path / "pyproject.toml"


def test_find_config_prefers_promptlint_toml_in_same_directory(tmp_path):
    write(tmp_path / "pyproject.toml", "[tool.promptlint]\n")
    write(tmp_path / "promptlint.toml", "select = ['ALL']\n")
    assert find_config([tmp_path]) == tmp_path / "promptlint.toml"


def test_find_config_nearer_directory_wins(tmp_path):
    write(tmp_path / "pyproject.toml", "[tool.promptlint]\n")
    sub = tmp_path / "svc"
    write(sub / "promptlint.toml", "")
    chat = write(sub / "chat.py", "")
    assert find_config([chat]) == sub / "promptlint.toml"


def test_find_config_uses_common_ancestor_of_all_paths(tmp_path):
    write(tmp_path / "pyproject.toml", "[tool.promptlint]\n")
    write(tmp_path / "a" / "promptlint.toml", "")
    a = write(tmp_path / "a" / "x.py", "")
    b = write(tmp_path / "b" / "y.py", "")
    assert find_config([a, b]) == tmp_path / "pyproject.toml"


def test_find_config_none_when_absent(tmp_path):
    chat = write(tmp_path / "deep" / "chat.py", "")
    found = find_config([chat])
    assert found is None or not str(found).startswith(str(tmp_path))


# --- loading -----------------------------------------------------------------------------------

def test_load_pyproject_table_kebab_keys(tmp_path):
    cfg = write(tmp_path / "pyproject.toml", """
[tool.promptlint]
select = ["PRM1"]
extend-select = ["PRM901"]
ignore = ["PRM104"]
fail-on = "error"
output-format = "sarif"
unsafe-fixes = true
targets = ["openai:gpt-4o", "anthropic:claude-sonnet-4"]
template-globs = ["prompts/**/*.md"]
prompt-globs = ["prompts/**/*.txt"]
extend-exclude = ["legacy/"]

[tool.promptlint.per-file-ignores]
"tests/**" = ["PRM102"]

[[tool.promptlint.profiles]]
provider = "openai"
name = "my-finetunes"
model_patterns = ["my-finetune-*"]
""")
    s = load_settings(cfg)
    assert s.select == ["PRM1"]
    assert s.extend_select == ["PRM901"]
    assert s.ignore == ["PRM104"]
    assert s.fail_on == "error"
    assert s.output_format == "sarif"
    assert s.unsafe_fixes is True
    assert s.targets == ["openai:gpt-4o", "anthropic:claude-sonnet-4"]
    assert s.template_globs == ["prompts/**/*.md"]
    assert s.prompt_globs == ["prompts/**/*.txt"]
    assert s.per_file_ignores == {"tests/**": ["PRM102"]}
    assert s.profiles == [{"provider": "openai", "name": "my-finetunes", "model_patterns": ["my-finetune-*"]}]
    assert s.root == tmp_path
    assert s.enabled_codes == {"PRM101", "PRM102", "PRM103", "PRM105", "PRM106", "PRM107", "PRM901"}


def test_defaults_enable_every_rule_and_fail_on_warning():
    from promptlint.rules import ALL_RULES

    s = load_settings(None)
    assert s.enabled_codes == {r.code for r in ALL_RULES}
    assert s.fail_on == "warning"
    assert s.output_format == "text"
    assert ".git" in s.exclude


def test_promptlint_toml_has_keys_at_top_level(tmp_path):
    cfg = write(tmp_path / "promptlint.toml", 'ignore = ["timestamp-in-prefix"]\n')
    s = load_settings(cfg)
    assert "PRM102" not in s.enabled_codes
    assert "PRM103" in s.enabled_codes


def test_unknown_key_names_it_and_suggests(tmp_path):
    cfg = write(tmp_path / "pyproject.toml", "[tool.promptlint]\nextend-selct = ['PRM1']\n")
    with pytest.raises(ConfigError) as err:
        load_settings(cfg)
    message = str(err.value)
    assert "`extend-selct`" in message
    assert "did you mean `extend-select`?" in message
    assert "\n" not in message


def test_unknown_rule_selector_suggests_nearest(tmp_path):
    cfg = write(tmp_path / "promptlint.toml", "select = ['PRM1O2']\n")
    with pytest.raises(ConfigError, match=r"unknown rule selector `PRM1O2`.*did you mean `PRM102`"):
        load_settings(cfg)


def test_unknown_rule_name_suggests_nearest_name(tmp_path):
    cfg = write(tmp_path / "promptlint.toml", "ignore = ['timestamp-in-prefx']\n")
    with pytest.raises(ConfigError, match="did you mean `timestamp-in-prefix`"):
        load_settings(cfg)


@pytest.mark.parametrize("text, fragment", [
    ("select = 'PRM1'\n", "must be a list of strings"),
    ("unsafe-fixes = 'yes'\n", "must be true or false"),
    ("fail-on = 'warn'\n", "invalid value `warn`"),
    ("output-format = 'sarf'\n", "did you mean `sarif`"),
    ("targets = ['gpt-4o']\n", "expected PROVIDER:MODEL"),
    ("[per-file-ignores]\n'x/*' = ['PRM9999']\n", "unknown rule selector `PRM9999`"),
    ("select = [\n", "invalid TOML"),
])
def test_bad_values_are_config_errors(tmp_path, text, fragment):
    cfg = write(tmp_path / "promptlint.toml", text)
    with pytest.raises(ConfigError, match=fragment.replace("(", r"\(")):
        load_settings(cfg)


def test_isolated_ignores_the_file(tmp_path):
    cfg = write(tmp_path / "promptlint.toml", "select = ['PRM102']\nnot-a-key = 1\n")
    s = load_settings(cfg, isolated=True)
    assert "PRM101" in s.enabled_codes
    assert s.config_path is None


def test_cli_select_replaces_config_select(tmp_path):
    cfg = write(tmp_path / "promptlint.toml", "select = ['PRM1']\n")
    s = load_settings(cfg, cli_overrides={"select": ["PRM901"], "fail_on": "info"})
    assert s.enabled_codes == {"PRM901"}
    assert s.fail_on == "info"


def test_cli_extend_select_and_ignore_layer_on_config(tmp_path):
    cfg = write(tmp_path / "promptlint.toml", "select = ['PRM102']\nignore = ['PRM901']\n")
    s = load_settings(cfg, cli_overrides={"extend_select": ("PRM103",), "ignore": ["PRM102"],
                                          "select": None})
    assert s.enabled_codes == {"PRM103"}


def test_cli_unknown_selector_is_config_error():
    with pytest.raises(ConfigError, match=r"`--extend-select`.*did you mean `PRM104`"):
        load_settings(None, cli_overrides={"extend_select": ["PRM14"]})


# --- selection -----------------------------------------------------------------------------------

def test_selectors_expand_codes_prefixes_names_and_all():
    assert expand_selectors(["PRM10"]) == {"PRM101", "PRM102", "PRM103", "PRM104", "PRM105", "PRM106", "PRM107"}
    assert expand_selectors(["unused-suppression", "PRM001"]) == {"PRM901", "PRM001"}
    assert "PRM101" in expand_selectors(["ALL"])


def test_more_specific_ignore_beats_prefix_select():
    s = Settings(select=["PRM1"], ignore=["PRM102"])
    assert s.enabled_codes == {"PRM101", "PRM103", "PRM104", "PRM105", "PRM106", "PRM107"}


def test_more_specific_select_beats_prefix_ignore():
    s = Settings(select=["PRM102"], ignore=["PRM1"])
    assert s.enabled_codes == {"PRM102"}


def test_select_all_then_ignore_prefix():
    s = Settings(select=["ALL"], ignore=["PRM1", "PRM001"])
    assert not any(c.startswith("PRM1") for c in s.enabled_codes)
    assert "PRM001" not in s.enabled_codes
    assert "PRM901" in s.enabled_codes


def test_per_file_ignores_with_globs_and_negation(tmp_path):
    s = Settings(root=tmp_path, per_file_ignores={
        "tests/**": ["PRM102"],
        "*.j2": ["conditional-prefix"],
        "!app/**": ["PRM103"],
    })
    assert not s.is_enabled("PRM102", tmp_path / "tests" / "unit" / "test_chat.py")
    assert s.is_enabled("PRM102", tmp_path / "app" / "chat.py")
    assert not s.is_enabled("PRM104", tmp_path / "prompts" / "system.j2")
    assert s.is_enabled("PRM104", tmp_path / "prompts" / "system.md")
    # "!app/**": ignored everywhere except under app/
    assert s.is_enabled("PRM103", tmp_path / "app" / "chat.py")
    assert not s.is_enabled("PRM103", tmp_path / "scripts" / "batch.py")


def test_per_file_ignores_relative_to_config_root(tmp_path, monkeypatch):
    cfg = write(tmp_path / "promptlint.toml", "[per-file-ignores]\n'legacy/*.py' = ['PRM1']\n")
    s = load_settings(cfg)
    monkeypatch.chdir(tmp_path)
    assert not s.is_enabled("PRM101", "legacy/old.py")
    assert s.is_enabled("PRM101", "new/old.py")
    assert s.is_enabled("PRM901", "legacy/old.py")


def test_disabled_rule_is_disabled_for_every_file(tmp_path):
    s = Settings(root=tmp_path, ignore=["PRM104"])
    assert not s.is_enabled("PRM104", tmp_path / "x.py")
    assert not s.is_enabled("PRM104")


def test_exclude_and_extend_exclude(tmp_path):
    s = Settings(root=tmp_path, extend_exclude=["generated/", "*.snap.md"])
    assert s.is_excluded(tmp_path / ".venv")
    assert s.is_excluded(tmp_path / "generated")
    assert s.is_excluded(tmp_path / "prompts" / "a.snap.md")
    assert not s.is_excluded(tmp_path / "prompts" / "a.md")
    replaced = Settings(root=tmp_path, exclude=["only/"])
    assert not replaced.is_excluded(tmp_path / ".venv")
    assert replaced.is_excluded(tmp_path / "only")


# --- through the command line ------------------------------------------------------------------

def cli(*args):
    from click.testing import CliRunner

    from promptlint.cli import main

    return CliRunner().invoke(main, list(args), catch_exceptions=False)


CHAT = 'import datetime\nfrom openai import OpenAI\nclient = OpenAI()\n' \
       'def answer(q, history):\n    return client.chat.completions.create(model="gpt-4o", messages=[\n' \
       '        {"role": "system", "content": f"Time: {datetime.datetime.now()}. Answer briefly, cite the policy section you rely on, and ask before any refund."},\n' \
       '        *history, {"role": "user", "content": q}])\n'


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "app" / "chat.py", CHAT)
    return tmp_path


def test_cli_unknown_key_is_exit_2_with_one_line(project):
    write(project / "pyproject.toml", "[tool.promptlint]\nfail-onn = 'error'\n")
    result = cli("check", "app")
    assert result.exit_code == 2
    assert result.stdout == ""
    # the file named relative to the current folder, as reports name files
    assert result.stderr == "promptlint: unknown key `fail-onn` in [tool.promptlint] of pyproject.toml; did you mean `fail-on`?\n"


def test_the_pyproject_header_in_promptlint_toml_says_how_to_write_it(project):
    write(project / "promptlint.toml", "[tool.promptlint]\nignore = ['PRM104']\n")
    result = cli("check", "app")
    assert result.exit_code == 2
    assert result.stderr == ("promptlint: unknown key `tool` in promptlint.toml: outside pyproject.toml "
                             "the settings are written without the [tool.promptlint] header (as top-level keys)\n")


def test_cli_isolated_and_explicit_config(project):
    write(project / "pyproject.toml", "[tool.promptlint]\nnot-a-key = 1\n")
    assert cli("check", "app", "--isolated").exit_code == 1
    other = write(project / "ci.toml", "ignore = ['PRM1', 'PRM3']\n")
    assert cli("check", "app", "--config", str(other)).exit_code == 0
    missing = cli("check", "app", "--config", "nope.toml")
    assert missing.exit_code == 2
    assert missing.stderr.startswith("promptlint: cannot read config file nope.toml")


def test_cli_config_selection_and_output_format(project):
    write(project / "promptlint.toml", "select = ['PRM301']\noutput-format = 'json'\n")
    import json

    result = cli("check", "app")
    assert {d["code"] for d in json.loads(result.stdout)["diagnostics"]} <= {"PRM301"}
    extended = json.loads(cli("check", "app", "--extend-select", "PRM102").stdout)
    assert "PRM102" in {d["code"] for d in extended["diagnostics"]}
    bad = cli("check", "app", "--extend-select", "PRM1O2")
    assert bad.exit_code == 2
    assert "did you mean `PRM102`" in bad.stderr


def test_cli_per_file_ignores(project):
    write(project / "promptlint.toml", "[per-file-ignores]\n'app/*.py' = ['timestamp-in-prefix']\n")
    import json

    result = cli("check", "app", "--output-format", "json")
    assert "PRM102" not in {d["code"] for d in json.loads(result.stdout)["diagnostics"]}


# --- template-globs and prompt-globs choose files of any name (issue 10) ------------------------

def _globs_project(tmp_path, config: str):
    from promptlint.api import check
    tmp_path = tmp_path / "x" / "app"  # pytest's folder name holds "prompt": keep it 3 folders up
    tmp_path.mkdir(parents=True)
    (tmp_path / "pyproject.toml").write_text("[tool.promptlint]\n" + config, encoding="utf-8")
    (tmp_path / "agent").mkdir()
    (tmp_path / "agent" / "system.tmpl").write_text("Today is {{ today }}.\nYou are careful.\n", encoding="utf-8")
    (tmp_path / "agent" / "broken.tmpl").write_text("Hello {{ name }}\n{% if x %}\n", encoding="utf-8")
    (tmp_path / "instructions").mkdir()
    (tmp_path / "instructions" / "agent.txt").write_text("Date: {date}\nYou answer about invoices.\n",
                                                          encoding="utf-8")
    settings = load_settings(tmp_path / "pyproject.toml")
    report = check([tmp_path], settings)
    prompts = sorted((Path(p.id).as_posix().split(str(tmp_path.as_posix()) + "/")[-1], p.source)
                     for p in report.prompts)
    errors = sorted((Path(d.span.filename).name, d.code) for d in report.diagnostics)
    return prompts, errors, report.files


def test_template_globs_make_matching_files_templates(tmp_path):
    prompts, errors, files = _globs_project(tmp_path, 'template-globs = ["agent/*.tmpl"]\n')
    assert prompts == [("agent/system.tmpl:1", "template")]
    assert errors == [("broken.tmpl", "PRM001")]  # parsed as Jinja: its syntax error is reported
    assert files == 3  # and pyproject.toml


def test_prompt_globs_make_matching_files_prompt_text(tmp_path):
    prompts, errors, files = _globs_project(tmp_path, 'prompt-globs = ["instructions/*.txt"]\n')
    assert prompts == [("instructions/agent.txt:1", "prompt-text")]
    assert errors == [] and files == 2


def test_without_globs_such_files_are_not_checked(tmp_path):
    assert _globs_project(tmp_path, "") == ([], [], 1)
