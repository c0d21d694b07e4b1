"""A prompt file rendered through a small helper of the project that takes its file name and builds
its Jinja loader from a folder the analysis cannot read (`render_prompt("detect_pii.txt", ctx)`,
the folder from a path helper): the one prompt file of that name in the project is the template
(python/linking.py), so the values the caller passes fill its placeholders."""
from __future__ import annotations

from analysis_support import layouts, parts, sent

HELPER = """
from jinja2 import Environment, FileSystemLoader

from app.paths import absolute


def render_prompt(filename, context, base_directory=None):
    if base_directory is None:
        base_directory = absolute("./prompts")
    env = Environment(loader=FileSystemLoader(base_directory))
    return env.get_template(filename).render(context)
"""

RULES = "Decide whether the text contains personal data and name each category you find. " * 10

FILES = {
    "app/__init__.py": "",
    "app/paths.py": "from app.config import load\n\n\ndef absolute(path):\n    return load()[path]\n",
    "app/helpers.py": HELPER,
    "app/prompts/review.txt": "You review the file {{ file_name }}. " + RULES,
    "app/prompts/twice.txt": "A {{ x }}",
    "app/other/__init__.py": "",
    "app/other/prompts/twice.txt": "B {{ x }}",
}

SENDER = """
from datetime import datetime

from openai import OpenAI

from app.helpers import render_prompt

client = OpenAI()


def review(text, name):
    system = render_prompt("{file}", {{"file_name": datetime.now().isoformat(), "x": name}})
    return client.chat.completions.create(
        model="gpt-4.1", messages=[{{"role": "system", "content": system}}, {{"role": "user", "content": text}}])
"""


def test_a_prompt_file_rendered_by_a_helper_that_takes_its_name_is_filled(tmp_path):
    layout, = sent(layouts(tmp_path, SENDER.format(file="review.txt"), FILES, name="app/send.py"))
    system = parts(layout)[0]
    assert system[0] == "system"
    assert system[1][0] == ("text", "You review the file ")
    assert system[1][1][:2] == ("timestamp", "per-request")
    assert layout.parts[0].segments[1].span.filename.endswith("review.txt")


def test_a_file_name_two_prompt_files_share_is_not_guessed(tmp_path):
    layout, = sent(layouts(tmp_path, SENDER.format(file="twice.txt"), FILES, name="app/send.py"))
    assert not any(seg[0] == "text" and seg[1].startswith(("A ", "B ")) for seg in parts(layout)[0][1])


ATTRS_HELPER = """
import os

from attrs import Factory, define, field
from jinja2 import Environment, FileSystemLoader


def abs_path(path):
    return os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, path))


@define(frozen=True)
class Tmpl:
    template_name: str | None = field(default=None)
    templates_dir: str = field(default=abs_path("templates"), kw_only=True)
    environment: Environment = field(
        default=Factory(lambda self: Environment(loader=FileSystemLoader(self.templates_dir)), takes_self=True),
        kw_only=True,
    )

    def render(self, **kwargs):
        return self.environment.get_template(self.template_name).render(kwargs).rstrip()
"""

ATTRS_SENDER = """
from datetime import datetime

from openai import OpenAI

from app.utils.tmpl import Tmpl

client = OpenAI()


def review(text):
    system = Tmpl("review.j2").render(stamp=datetime.now().isoformat())
    return client.chat.completions.create(
        model="gpt-4.1", messages=[{"role": "system", "content": system}, {"role": "user", "content": text}])
"""


def test_a_template_rendered_by_an_attrs_helper_class_is_filled(tmp_path):
    # the template's name given positionally, its loader made by a field's factory from the
    # instance, its folder one up from the helper's (`os.pardir`)
    files = {"app/__init__.py": "", "app/utils/__init__.py": "", "app/utils/tmpl.py": ATTRS_HELPER,
             "app/templates/review.j2": "You review at {{ stamp }}. " + RULES}
    layout, = sent(layouts(tmp_path, ATTRS_SENDER, files, name="app/send.py"))
    system = parts(layout)[0]
    assert system[1][0] == ("text", "You review at ")
    assert system[1][1][:2] == ("timestamp", "per-request")
    assert layout.parts[0].segments[1].span.filename.endswith("review.j2")
