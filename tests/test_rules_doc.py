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


def test_the_readme_rule_table_says_each_rules_brief():
    """README's rule table row of each rule is its `brief` (SARIF's shortDescription says it too)."""
    import re
    readme = (PAGE.parent.parent / "README.md").read_text(encoding="utf-8")
    rows = {code: (name, text) for code, name, text in
            re.findall(r"^\| (PRM\d{3}) \| ([\w-]+) \| (.+?) \|$", readme, re.M)}
    assert rows == {rule.code: (rule.name, rule.brief) for rule in ALL_RULES}
    assert all(len(rule.brief) <= 160 and not rule.brief.endswith(".") for rule in ALL_RULES)
