"""Stream a large request log through `promptlint trace` and measure time and peak memory.

    python benchmarks/trace_stream.py                      # 100,000 bodies of ~4,000 tokens, piped
    python benchmarks/trace_stream.py --requests 10000     # a smaller run, to compare the peak memory
    python benchmarks/trace_stream.py --file /tmp/log.jsonl  # write the log to disk first, then trace it

The log is generated on the fly from the prompts of fixtures/trace/app, so that every request is
matched to a static layout and each divergence is mapped back to its source line:
- support chats (OpenAI chat completions, a timestamp in the system prompt: every turn diverges),
  about half of the requests;
- tutor conversations (OpenAI Responses, append-only: no divergence), about a quarter;
- order agent requests (Anthropic messages, tools in one of two orders, as from two worker
  processes with different hash seeds), about a quarter.
Conversations run interleaved (`--concurrent` at a time), two to five turns each; every body
is about 4,000 tokens (o200k). By default the log is written to the child's standard
input through a pipe and never stored: the child holds what its bounded state holds, whatever
the length of the log.

Printed: the number of requests and bytes, the o200k tokens of a sample of bodies, the wall and
CPU time of the child, its peak resident memory (`ru_maxrss`) and the summary of its report.
Nothing here asserts a time; figures go to benchmarks/README.md.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "fixtures" / "trace" / "app"
START = 1_796_029_200.0  # 2026-11-30 09:00 UTC, in seconds
TARGET_CHARS = 20_000  # about 4,000 o200k tokens of this English text

PARAGRAPHS = [
    "I bought the Counter two-stage cartridge last month and the flow has been getting weaker every week. "
    "The kitchen tap now takes almost a minute to fill a kettle, which it did in ten seconds before. ",
    "We checked the O-ring as your colleague suggested and it looked fine, no cracks and properly seated. "
    "The unit sits on the counter next to the sink and nobody moved it since the technician left. ",
    "Could you tell me whether the subscription shipment for December has already left the warehouse? "
    "I would like to move it to my daughter's address because we will spend the holidays there. ",
    "The taste is much better than before the filter, but there is a faint smell of carbon in the morning "
    "when the water has been standing overnight in the pipes, and it goes away after a few seconds. ",
    "Thank you, that helps. One more question about the warranty: does it cover the housing if it cracked "
    "during a cold night in the garage, or is freezing damage excluded like you said about the Home system? ",
]


def _text(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(PARAGRAPHS) for _ in range(n))


class Conversation:
    """One interleaved conversation of one of the three prompts; `next_line()` gives its next request.

    Its first user message is long enough (a pasted email thread) that the first body is about
    `TARGET_CHARS`; each later turn adds a short answer and question, so that every body stays
    close to 4,000 tokens."""

    def __init__(self, kind: str, ident: int, rng: random.Random, fixtures: dict):
        self.kind, self.ident, self.rng, self.f = kind, ident, rng, fixtures
        self.turns: list[dict] = []
        self.planned = 1 if kind == "agent" else rng.randint(2, 5)
        self.worker = (ident // 4) % 2  # agents alternate between two workers' tool orders

    def done(self) -> bool:
        return len(self.turns) // 2 >= self.planned

    def _question(self) -> str:
        label = f"(customer {self.ident}, turn {len(self.turns) // 2 + 1}) "
        if self.turns:
            return label + _text(self.rng, 1)
        room = TARGET_CHARS - self.f["head_chars"][self.kind] - (self.planned - 1) * 2 * 230
        text = label
        while len(text) < room:
            text += self.rng.choice(PARAGRAPHS)
        return text

    def next_line(self, now: float) -> str:
        self.turns.append({"role": "user", "content": self._question()})
        if self.kind == "chat":
            clock = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(now))
            head = {"role": "system", "content": self.f["chat_head"].replace("{now}", clock)}
            body = {"model": "gpt-4.1", "messages": [head, *self.turns]}
            line = {"provider": "openai", "endpoint": "/v1/chat/completions", "body": body}
        elif self.kind == "tutor":
            body = {"model": "gpt-4.1-mini", "input": list(self.turns), "instructions": self.f["tutor"]}
            line = {"provider": "openai", "endpoint": "/v1/responses", "body": body}
        else:
            tools = self.f["tools"] if self.worker == 0 else self.f["tools"][::-1]
            body = {"max_tokens": 1024, "messages": list(self.turns), "model": "claude-sonnet-5", "tools": tools,
                    "system": [{"type": "text", "text": self.f["rules"], "cache_control": {"type": "ephemeral"}}]}
            line = {"provider": "anthropic", "endpoint": "/v1/messages", "body": body}
        self.turns.append({"role": "assistant", "content": _text(self.rng, 1)})
        line["time"] = now
        return json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n"


def fixtures() -> dict:
    sys.path.insert(0, str(APP.parent))
    from app.order_agent import TOOL_SPECS
    policy = (APP / "support_policy.md").read_text(encoding="utf-8")
    found = {
        "chat_head": "You are the support assistant of Harborline.\nCurrent time: {now}\n\n" + policy,
        "tutor": (APP / "tutor_instructions.md").read_text(encoding="utf-8"),
        "rules": (APP / "agent_rules.md").read_text(encoding="utf-8"),
        "tools": [TOOL_SPECS[name] for name in sorted(TOOL_SPECS)],
    }
    found["head_chars"] = {"chat": len(found["chat_head"]), "tutor": len(found["tutor"]),
                           "agent": len(found["rules"]) + len(json.dumps(found["tools"]))}
    return found


def generate(requests: int, concurrent: int, seed: int = 7):
    """Yield `requests` log lines: conversations interleaved, `concurrent` open at a time."""
    rng = random.Random(seed)
    data = fixtures()
    kinds = ["chat", "chat", "tutor", "agent"]
    open_: list[Conversation] = []
    ident = 0
    for n in range(requests):
        while len(open_) < concurrent:
            ident += 1
            open_.append(Conversation(kinds[ident % 4], ident, random.Random(rng.random()), data))
        conv = open_[rng.randrange(len(open_))]
        yield conv.next_line(START + n * 0.5)
        if conv.done():
            open_.remove(conv)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=100_000)
    parser.add_argument("--concurrent", type=int, default=200, help="conversations open at a time")
    parser.add_argument("--file", type=Path, help="write the log here first, then trace the file")
    parser.add_argument("--promptlint", default=f"{sys.executable} -m promptlint")
    args = parser.parse_args()
    command = args.promptlint.split() + ["trace", str(args.file or "-"), str(APP), "--output-format", "json"]
    sample, total_bytes = [], 0
    lines = generate(args.requests, args.concurrent)
    if args.file:
        with open(args.file, "w", encoding="utf-8") as out:
            for i, line in enumerate(lines):
                out.write(line)
                total_bytes += len(line.encode("utf-8"))
                if i % 199 == 0:
                    sample.append(line)
        lines = iter(())
    started, before = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=ROOT)
    import threading
    report: list[bytes] = []
    reader = threading.Thread(target=lambda: report.append(child.stdout.read()))
    reader.start()
    for i, line in enumerate(lines):
        data = line.encode("utf-8")
        total_bytes += len(data)
        child.stdin.write(data)
        if i % 199 == 0:
            sample.append(line)
    child.stdin.close()
    reader.join()
    child.wait()
    wall = time.perf_counter() - started
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    from promptlint import tokens
    from promptlint.trace.reader import parse_line
    sizes = [sum(tokens.count(u.text) for u in parse_line(1, s.encode()).units) for s in sample]
    summary = json.loads(report[0])["summary"] if report and report[0] else {}
    print(f"cpus: {os.cpu_count()}  requests: {args.requests:,}  log: {total_bytes / 1e6:,.0f} MB"
          f" ({'file' if args.file else 'pipe'})")
    print(f"tokens per body (o200k, {len(sizes)} sampled): mean {sum(sizes) / max(len(sizes), 1):,.0f},"
          f" min {min(sizes, default=0):,}, max {max(sizes, default=0):,}")
    print(f"wall: {wall:,.1f} s  cpu: {usage.ru_utime + usage.ru_stime - before.ru_utime - before.ru_stime:,.1f} s"
          f"  peak memory of promptlint: {usage.ru_maxrss / 1024:,.0f} MiB  exit code: {child.returncode}")
    print(f"report summary: {json.dumps(summary)}")


if __name__ == "__main__":
    main()
