"""False findings of a new user's trial, by kind (fixtures/falsepos/): each kind has a case that
must stay silent and one that must still be reported."""
from __future__ import annotations

from pathlib import Path

from promptlint.api import check
from promptlint.config import Settings

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "falsepos"


def _row(path: Path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def _found(folder: str):
    result = check([FIXTURES / folder], Settings(), jobs=1)
    return [(d.code, d.severity.value, Path(d.span.filename).name, d.span.start.row) for d in result.diagnostics]


def test_json_schemas_made_by_code_keep_their_key_order():
    app = FIXTURES / "schemas" / "agent.py"
    assert _found("schemas") == [("PRM201", "info", "agent.py", _row(app, "json.dumps(profile)"))]


def test_a_text_str_format_cannot_parse_is_no_template():
    """BibTeX braces (`year={2021}` beside `Daum{\\'e}`) in a constant only joined with `+`: text,
    not template variables; a constant with a `{title}` field is still one."""
    app = FIXTURES / "bibtex" / "prompts.py"
    assert _found("bibtex") == [("PRM101", "info", "prompts.py", _row(app, "the paper {title}"))]


def test_a_request_described_in_a_log_call_is_not_a_send():
    app = FIXTURES / "logged_tools" / "agent.py"
    assert _found("logged_tools") == [("PRM204", "info", "agent.py", _row(app, "def chosen_turn") + 3)]


def test_sort_keys_is_safe_only_for_keys_known_strings_all_the_way_down():
    """`Dict[str, Any]` may hold dicts keyed by ints and strs (sort_keys raises TypeError): unsafe;
    `Optional[dict[str, list[int]]]`: safe."""
    result = check([FIXTURES / "json_keys"], Settings(), jobs=1)
    fixes = {d.message.split("`")[1]: d.fix.applicability.value for d in result.diagnostics if d.code == "PRM201"}
    assert fixes == {"json.dumps(state_store, indent=2)": "unsafe", "json.dumps(counts)": "safe"}


def test_a_part_of_a_larger_prompt_is_judged_where_it_sits():
    """`return graph_input + CUSTOM_USE + graph_system`: the template filled into `graph_system`
    comes last, after the per-round sample: only the sample's `{graph}` is reported, and explain
    of the `graph_system` line draws the whole prompt first."""
    app = FIXTURES / "concat" / "optimizer.py"
    assert _found("concat") == [("PRM101", "info", "optimizer.py", _row(app, "<graph>{graph}"))]


def test_explain_draws_the_larger_prompt_first():
    from promptlint.report.explain import select_layouts
    app = FIXTURES / "concat" / "optimizer.py"
    result = check([FIXTURES / "concat"], Settings(), jobs=1)
    chosen = select_layouts(result.prompts, _row(app, "graph_system = "), None, result.diagnostics)
    assert [lay.site.start.row for lay in chosen] == [_row(app, "return graph_input"), _row(app, "graph_system = ")]
