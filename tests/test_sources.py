"""What users get cites only what users have: no file of the shipped code, the rule specs, the docs
or the README names a team-internal file (the provider fact sheet, the design or style notes, a
path outside the repository), and every provider number in providers.toml carries the https URL
of its public source."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
PROVIDERS = ROOT / "promptlint" / "profiles" / "providers.toml"
# Spelled in pieces so that this file does not match its own search.
FORBIDDEN = ("PROVIDERS" + ".md", "DESIGN" + ".md", "STYLE" + ".md", ".." + "/shared", "/work" + "/shared")
# Fields of a profile row that hold a provider number (see promptlint.profiles.Profile).
NUMBER_FIELDS = {"min_cacheable_tokens", "increment_tokens", "max_breakpoints", "read_price_multiplier",
                 "write_price_multiplier", "long_ttl_write_price_multiplier", "cached_input_price_multiplier",
                 "cache_write_price_multiplier", "default_ttl", "long_ttl", "caching_supported", "automatic"}
URL = re.compile(r"https?://[^\s;,()'\"]+")


def _cites_https(source: str) -> bool:
    """True when `source` gives at least one URL and every URL in it is https."""
    urls = URL.findall(source)
    return bool(urls) and all(u.startswith("https://") for u in urls)


def _shipped_files() -> list[Path]:
    files = [ROOT / "README.md"]
    for folder in ("promptlint", "rules", "docs"):
        files += [p for p in sorted((ROOT / folder).rglob("*"))
                  if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"]
    return files


def test_the_search_covers_code_data_rule_specs_and_docs():
    names = {p.relative_to(ROOT).as_posix() for p in _shipped_files()}
    assert {"README.md", "promptlint/profiles/providers.toml", "promptlint/estimates.py",
            "promptlint/impact.py", "rules/PRM301-prefix-below-minimum.md", "docs/rules.md",
            "docs/trace.md"} <= names


@pytest.mark.parametrize("needle", FORBIDDEN)
def test_no_shipped_file_names_a_team_internal_file(needle):
    hits = []
    for path in _shipped_files():
        text = path.read_bytes().decode("utf-8", errors="replace")
        hits += [f"{path.relative_to(ROOT).as_posix()}:{n}" for n, line in enumerate(text.splitlines(), 1)
                 if needle.lower() in line.lower()]
    assert not hits, f"{needle!r} in {hits}"


def _rows() -> list[tuple[str, dict]]:
    data = tomllib.loads(PROVIDERS.read_text(encoding="utf-8"))
    rows = [(f"profile {row.get('name')}", row) for row in data["profile"]]
    rows += [(f"inherit.{name}", row) for name, row in data.get("inherit", {}).items()]
    return rows


def test_every_provider_number_has_an_https_source():
    rows = _rows()
    assert len(rows) >= 30
    bad = []
    for where, row in rows:
        if where.startswith("profile") and not NUMBER_FIELDS & row.keys():
            continue
        if not _cites_https(row.get("source", "")):
            bad.append((where, row.get("source")))
    assert not bad, bad


def test_the_source_check_rejects_a_source_without_an_https_url():
    for source in ("anthropics/skills prompt-caching.md", "http://example.com/page",
                   "https://a.example/x; http://b.example/y", "see the fact sheet", ""):
        assert not _cites_https(source), source
    assert _cites_https("https://docs.x.ai/a (undated) [primary]; a blog post [secondary]")
    assert URL.findall("https://docs.x.ai/a (undated); https://b.example/c") == ["https://docs.x.ai/a",
                                                                              "https://b.example/c"]
