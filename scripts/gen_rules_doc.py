"""Write docs/rules.md from the rule docstrings; `--check` exits 1 when the file is stale.

Usage: python scripts/gen_rules_doc.py [--check]
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from promptlint.report.rules import rules_markdown  # noqa: E402
from promptlint.rules import ALL_RULES  # noqa: E402

TARGET = ROOT / "docs" / "rules.md"


def main(argv: list[str]) -> int:
    text = rules_markdown(ALL_RULES)
    if "--check" in argv:
        current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
        if current != text:
            print(f"{TARGET.relative_to(ROOT)} is out of date: run "
                  "python scripts/gen_rules_doc.py", file=sys.stderr)
            return 1
        return 0
    TARGET.parent.mkdir(parents=True, exist_ok=True)
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET.relative_to(ROOT)} ({len(ALL_RULES)} rules)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
