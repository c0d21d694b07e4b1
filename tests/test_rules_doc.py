"""docs/rules.md is generated from the rule docstrings (`python scripts/gen_rules_doc.py`): this
test fails when a rule's docs and the page differ, so the page cannot go stale."""
from pathlib import Path

from promptlint.report.rules import rules_markdown
from promptlint.rules import ALL_RULES

PAGE = Path(__file__).resolve().parent.parent / "docs" / "rules.md"


def test_docs_rules_md_is_generated_from_the_rule_docstrings():
    assert PAGE.read_text(encoding="utf-8") == rules_markdown(ALL_RULES), \
        "docs/rules.md is stale: run python scripts/gen_rules_doc.py"


def test_every_rule_has_a_section():
    text = PAGE.read_text(encoding="utf-8")
    assert all(f"{rule.code}" in text and rule.name in text for rule in ALL_RULES)
    assert len(ALL_RULES) == 22
