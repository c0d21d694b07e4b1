"""`--output-format html`: the self-contained report of every prompt (issue 15).

- the demo's report holds every prompt and every finding of the JSON report, and nothing that
  loads from the network or runs;
- prompt text and file names are escaped, whatever they contain;
- each layout is drawn in request order with breakpoints and, per target, the end of the cached
  prefix;
- headless Chromium renders the demo's report to a PNG (skipped where Chromium is not installed).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from promptlint.cli import main
from promptlint.estimates import estimate
from promptlint.model import Breakpoint, Kind, Part, Position, PromptLayout, Report, Segment, Span, Volatility
from promptlint.profiles import Target, apply_overrides
from promptlint.report import html

ROOT = Path(__file__).resolve().parents[1]
PAYLOAD = "</script><img src=x onerror=alert(1)>"


class Page(HTMLParser):
    """Every start tag with its attributes, and the page's text."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.data: list[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.data.append(data)

    def having(self, attr: str) -> list[dict]:
        return [a for _t, a in self.tags if attr in a]

    @property
    def text(self) -> str:
        return "".join(self.data)


def cli(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """(JSON report, HTML page) of `check fixtures/demo`, run from the repository root."""
    cwd = Path.cwd()
    os.chdir(ROOT)
    try:
        as_json = cli("check", "fixtures/demo", "--output-format", "json")
        as_html = cli("check", "fixtures/demo", "--output-format", "html")
    finally:
        os.chdir(cwd)
    assert as_json.exit_code == as_html.exit_code == 1
    return json.loads(as_json.stdout), as_html.stdout


def judged_ids(report: dict) -> list[str]:
    """The ids of the report's prompts that are prompts of their own (`promptlint.judged`): the
    page draws each prompt once, not again as the candidate whose text a call sends."""
    from promptlint.api import check
    from promptlint.judged import judged
    cwd = Path.cwd()
    os.chdir(ROOT)
    try:
        ids = {lt.id for lt in judged(check(["fixtures/demo"]).prompts)}
    finally:
        os.chdir(cwd)
    return [p["id"] for p in report["prompts"] if p["id"] in ids]


def test_demo_report_has_every_prompt_and_every_finding(demo):
    report, page_text = demo
    page = Page(page_text)
    prompts = [a["data-prompt-id"] for a in page.having("data-prompt-id")]
    assert prompts == judged_ids(report) and len(prompts) >= 10
    findings = sorted((a["data-code"], a["data-location"]) for a in page.having("data-code"))
    expected = sorted((d["code"], f'{d["filename"]}:{d["location"]["row"]}:{d["location"]["column"]}')
                      for d in report["diagnostics"])
    assert findings == expected and len(findings) >= 10
    for d in report["diagnostics"]:
        assert d["message"] in page.text


def test_demo_report_is_self_contained(demo):
    _report, page_text = demo
    page = Page(page_text)
    assert not [t for t, _a in page.tags if t in ("script", "link", "img", "iframe", "object", "embed")]
    assert [a["content"] for a in page.having("http-equiv")] == [
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:"]
    assert "url(" not in page_text and "@import" not in page_text
    hrefs = [a["href"] for a in page.having("href")]
    assert hrefs and all(h.startswith(("./", "#")) for h in hrefs), [h for h in hrefs if not h.startswith(("./", "#"))]


def test_each_prompt_has_a_layout_bar_with_linked_segments(demo):
    report, page_text = demo
    page = Page(page_text)
    segments = [a for t, a in page.tags if "seg" in a.get("class", "").split()]
    assert {a["class"].split()[1] for a in segments} >= {"static", "static-after", "volatile", "history"}
    linked = [a["href"] for a in segments if "href" in a]
    assert "./fixtures/demo/helpdesk/chat_openai.py#L26" in linked
    assert all(h.split("#L")[1].isdigit() for h in linked)
    assert len([a for t, a in page.tags if "cut" in a.get("class", "").split()]) >= len(judged_ids(report)) - 1
    assert "fixtures/demo/helpdesk/chat_openai.py:26:32" in page.text  # a finding with its source line
    assert 'return f"Current time: {now} UTC' in page.text


def test_prompt_text_and_file_names_are_escaped(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    evil = 'chat"><img src=x onerror=alert(1)>.py'
    (tmp_path / evil).write_text(
        "from openai import OpenAI\n\n"
        f"SYSTEM = {PAYLOAD + ' You are a support assistant. ' + 'Answer briefly. ' * 5!r}\n\n"
        "def ask(q, uid):\n"
        "    return OpenAI().chat.completions.create(model='gpt-4o', messages=[\n"
        "        {'role': 'system', 'content': SYSTEM + f'Session {uid}'}, {'role': 'user', 'content': q}])\n",
        encoding="utf-8")
    (tmp_path / "javascript:alert(1).py").write_text(
        "from openai import OpenAI\nOpenAI().chat.completions.create(model='gpt-4o', messages=[\n"
        "    {'role': 'system', 'content': 'Hello ' + str(__import__('uuid').uuid4())}])\n", encoding="utf-8")
    result = cli("check", ".", "--output-format", "html", "--exit-zero")
    page = Page(result.stdout)
    assert [t for t, _a in page.tags if t in ("img", "script")] == []
    assert PAYLOAD in page.text  # shown as text
    assert PAYLOAD not in result.stdout and "<img" not in result.stdout
    assert evil in page.text
    ids = [a["data-prompt-id"] for a in page.having("data-prompt-id")]
    assert any(i.startswith(evil) for i in ids) and any(i.startswith("javascript:alert(1).py") for i in ids)
    hrefs = [a["href"] for a in page.having("href")]
    assert all(h.startswith(("./", "#")) for h in hrefs)
    assert "./chat%22%3E%3Cimg%20src%3Dx%20onerror%3Dalert%281%29%3E.py#L3" in hrefs
    assert any(h.startswith("./javascript%3Aalert%281%29.py#L") for h in hrefs)


def span(row: int, col: int = 1) -> Span:
    return Span("chat.py", Position(row, col), Position(row, col + 5))


POLICY = "\n".join(f"{i}. Answer questions about order {i} politely and never guess." for i in range(1, 120))


def test_bar_marks_breakpoints_and_where_each_target_caches():
    """Anthropic caches up to its last breakpoint inside the static prefix; OpenAI's automatic
    cache reaches the end of the static prefix (here after the tools and the system prompt)."""
    apply_overrides([])
    layout = PromptLayout(
        id="chat.py:30", site=span(30), source="python-call", provider=None,
        parts=[Part("tools", [Segment(text="[" + POLICY[:400] + "]", span=span(31))]),
               Part("system", [Segment(text=POLICY, span=span(32))], [Breakpoint(after=-1, span=span(32, 40))]),
               Part("history", [Segment(kind=Kind.HISTORY, volatility=Volatility.UNKNOWN, expr="*history")]),
               Part("user", [Segment(kind=Kind.USER_INPUT, volatility=Volatility.PER_REQUEST, expr="q", span=span(33))])])
    layout.estimates = estimate(layout, [Target("anthropic", "claude-sonnet-4-5"), Target("openai", "gpt-4.1")])
    parts = html.context(Report(prompts=[layout], files=1), read_text=lambda name: None)["prompts"][0]["parts"]
    cells = [(part["role"], c["kind"], c.get("class") or c.get("labels")) for part in parts for c in part["cells"]]
    anthropic, openai = [e for e in layout.estimates]
    assert anthropic["cached_tokens"] == 0 < openai["cached_tokens"]  # tools alone are below Claude's minimum
    assert cells == [
        ("tools", "segment", "static"),
        ("system", "breakpoint", None),
        ("system", "cut", [f"anthropic:claude-sonnet-4-5: ~{anthropic['prefix_tokens']:,} tokens < 1,024 minimum, nothing cached"]),
        ("system", "segment", "static"),
        ("history", "cut", [f"openai:gpt-4.1: {openai['cached_tokens']:,} tokens cached"]),  # the static prefix ends here
        ("history", "segment", "history"),
        ("user", "segment", "volatile"),
    ]


def test_output_format_html_from_the_config_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "promptlint.toml").write_text('output-format = "html"\n', encoding="utf-8")
    (tmp_path / "chat.py").write_text("x = 1\n", encoding="utf-8")
    result = cli("check", "chat.py")
    assert result.exit_code == 0 and result.stdout.startswith("<!doctype html>")
    assert "No findings." in Page(result.stdout).text


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
GREEN, RED, PURPLE = (0x2F, 0x9E, 0x5E), (0xD6, 0x45, 0x41), (0x8A, 0x63, 0xC9)


@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (Debian: apt-get install chromium)")
def test_chromium_renders_the_demo_report(demo, tmp_path):
    """The top of the page at half scale (1280 x 2400 CSS pixels): the summary and the first
    prompts' bars, whose segment colours must be on the picture in quantity. The PNG is kept at
    `PROMPTLINT_SCREENSHOT` when that variable names a file, to look at."""
    from png import count_colour, read_png
    _report, page_text = demo
    page = tmp_path / "report.html"
    page.write_text(page_text, encoding="utf-8")
    shot = tmp_path / "report.png"
    subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
                    f"--user-data-dir={tmp_path / 'profile'}", "--force-device-scale-factor=0.5",
                    "--window-size=1280,2400", f"--screenshot={shot}", page.as_uri()],
                   check=True, capture_output=True, timeout=120)
    data = shot.read_bytes()
    if os.environ.get("PROMPTLINT_SCREENSHOT"):
        Path(os.environ["PROMPTLINT_SCREENSHOT"]).write_bytes(data)
    width, height, rows = read_png(data)
    assert (width, height) == (640, 1200)
    # legend swatches alone are about 66 pixels each at this scale; the bars bring thousands
    assert count_colour(rows, GREEN) > 2000
    assert count_colour(rows, RED) > 300
    assert count_colour(rows, PURPLE) > 300


def test_findings_by_rule_counts_each_severity_of_a_rule():
    from promptlint.model import Diagnostic, Severity

    def finding(severity, row):
        return Diagnostic("PRM101", "dynamic-before-static", severity, f"m{row}",
                          Span("a.py", Position(row, 1), Position(row, 2)))

    report = Report(diagnostics=[finding(Severity.INFO, 1), finding(Severity.WARNING, 2), finding(Severity.INFO, 3)])
    rules = html.context(report, read_text=lambda _path: "")["rules"]
    assert rules == [{"code": "PRM101", "name": "dynamic-before-static", "count": 3,
                      "severities": [("warning", 1), ("info", 2)]}]
    items = Page(html.render(report, read_text=lambda _path: "")).text
    assert "PRM101 dynamic-before-static warning 1 info 2 3" in " ".join(items.split())
