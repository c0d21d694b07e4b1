"""Text and markdown prompts kept outside prompt folders (session 16): a `.txt` / `.md` file under a
folder named for templates or instructions, or named like `system_prompt.txt`, is prompt text when
the project's Python names it (by its stem for a loader keyed by name, by its file name or path),
and not when it is a web page or e-mail (Django and Flask keep those in `templates/` too).

The fixture fixtures/templates/loaded_texts/ holds a grader package (judges loaded by name, a
critique read by path, a coach prompt read through importlib.resources, a format help page that is
documentation) and a Django shop whose e-mail bodies live in `templates/` as well.
"""
from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from promptlint.api import check  # noqa: E402
from promptlint.report import json as json_report  # noqa: E402
from promptlint.templates import file_kind, forget_project_readings  # noqa: E402
from promptlint.templates.prompt_files import is_web_template  # noqa: E402

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "templates" / "loaded_texts"


@pytest.fixture(autouse=True)
def fresh_readings():
    forget_project_readings()  # the projects below are written per test: no memo of another's Python
    yield
    forget_project_readings()


def findings(root: Path, cache_dir=None) -> list[tuple[str, str, int]]:
    report = json.loads(json_report.render(check([root], cache_dir=cache_dir)))
    return sorted((Path(d["filename"]).resolve().relative_to(root.resolve()).as_posix(), d["code"],
                   d["location"]["row"]) for d in report["diagnostics"])


def test_files_the_code_loads_from_template_and_instruction_folders_are_prompt_text():
    for rel in ("grader/judges/templates/score_answer.txt",  # loaded by name: load_template("score_answer")
                "grader/instructions/critique.md",  # Path(__file__).parent / "instructions" / "critique.md"
                "grader/coach/system_prompt.txt"):  # resources.files(...).joinpath("coach", "system_prompt.txt")
        assert file_kind(FIXTURE / rel) == "prompt-text", rel


def test_unnamed_files_documentation_and_web_templates_stay_unchecked():
    for rel in ("grader/judges/templates/notes.txt",  # beside the judges, but no code names it
                "grader/coach/prompt_format.md",  # named by the code, but a help page, not a prompt
                "shop/templates/emails/welcome.txt",  # render_to_string("emails/welcome.txt"): an e-mail
                "shop/templates/shop/receipt.txt",  # the text body beside receipt.html
                "shop/templates/notify/reset.txt",  # Django's {% load %} and {% url %}
                "grader/tests/templates/expected_score.txt"):  # a test's expected reply, test data
        assert file_kind(FIXTURE / rel) is None, rel


def test_findings_in_loaded_texts_follow_the_prompt_text_rules():
    found = findings(FIXTURE)
    assert found == [("grader/coach/system_prompt.txt", "PRM101", 1),
                     ("grader/instructions/critique.md", "PRM101", 3),
                     ("grader/judges/templates/score_answer.txt", "PRM101", 1)]
    report = json.loads(json_report.render(check([FIXTURE])))
    # the names alone say the values change per request (Policy 7): info, and the message says so
    assert {d["severity"] for d in report["diagnostics"]} == {"info"}


def test_other_folder_names_and_loaders(tmp_path):
    pkg = tmp_path / "svc" / "agent"
    pkg.mkdir(parents=True)
    (tmp_path / "svc" / "setup.cfg").write_text("[metadata]\nname = agent\n", encoding="utf-8")
    files = {"template/route.md": "Route {request}.", "system-instructions/tone.txt": "Tone for {user}.",
             "metrics/bleu/templates/judge.txt": "Judge {{ output }}.", "planner-prompt.md": "Plan {goal}.",
             "templates/unused.txt": "Never {loaded}.", "prompt.md": "Bare {name}."}
    for rel, text in files.items():
        (pkg / rel).parent.mkdir(parents=True, exist_ok=True)
        (pkg / rel).write_text(text + "\n", encoding="utf-8")
    for package in ("", "metrics", "metrics/bleu"):  # the judge's folder belongs to the package
        (pkg / package / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "run.py").write_text(
        'ROUTE = env.get_template("route.md")\n'
        'TONE = pkgutil.get_data(__name__, "system-instructions/tone.txt")\n'
        'JUDGE = registry.prompt("judge")\n'
        'PLAN = open(HERE / "planner-prompt.md").read()\n'
        'KIND = "prompt"\n', encoding="utf-8")
    assert file_kind(pkg / "template/route.md") == "prompt-text"
    assert file_kind(pkg / "system-instructions/tone.txt") == "prompt-text"
    assert file_kind(pkg / "metrics/bleu/templates/judge.txt") == "prompt-text"  # by its stem
    assert file_kind(pkg / "planner-prompt.md") == "prompt-text"  # named for a prompt, named with its extension
    assert file_kind(pkg / "templates/unused.txt") is None
    assert file_kind(pkg / "prompt.md") is None  # a bare "prompt" literal is no evidence for a file named so


def test_web_templates_by_place(tmp_path):
    tpl = tmp_path / "templates"
    (tpl / "orders").mkdir(parents=True)
    (tpl / "orders" / "done.txt").write_text("Done {{ order }}\n", encoding="utf-8")
    (tpl / "orders" / "done.html").write_text("<p>Done</p>\n", encoding="utf-8")
    (tpl / "judge.txt").write_text("Judge {{ domain }} answers\n", encoding="utf-8")
    assert is_web_template(tpl / "orders" / "done.txt", tpl, ("orders",))  # an HTML body beside it
    assert is_web_template(tpl / "mail" / "x.txt", tpl, ("mail",))
    assert is_web_template(tpl / "registration" / "x.txt", tpl, ("registration",))
    assert not is_web_template(tpl / "judge.txt", tpl)


def test_a_warm_run_follows_the_python_that_names_a_template(tmp_path, monkeypatch):
    """Whether a text file is a prompt depends on the project's Python: discovery decides it again
    on every run and the kind is part of the cached entry's key, so a warm run follows an edit of
    the code that names the file, both ways."""
    root = tmp_path / "loaded_texts"
    shutil.copytree(FIXTURE, root)
    monkeypatch.chdir(root)
    cache_dir = tmp_path / "cache"
    registry = root / "grader" / "registry.py"
    named = registry.read_text(encoding="utf-8")
    judge = ("grader/judges/templates/score_answer.txt", "PRM101", 1)
    assert judge in findings(root, cache_dir)
    registry.write_text(named.replace('"score_answer"', '"score_" + kind'), encoding="utf-8")
    forget_project_readings()  # as a new run of the command line would start
    assert judge not in findings(root, cache_dir)
    registry.write_text(named, encoding="utf-8")
    forget_project_readings()
    assert judge in findings(root, cache_dir)
    assert findings(root, cache_dir) == findings(root, None)
