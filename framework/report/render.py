"""A :class:`~macrocause.framework.report.document.Document` rendered to markdown and to HTML (Jinja2).

Every label is data: in markdown, ``& < >`` become entities, ``$`` and ``~`` character
references, ``[ ]`` entities (no link can form), other markdown punctuation (``\\ ` * _ |``)
backslash-escaped, newlines
become spaces; the HTML template autoescapes. Figures are linked by file name (the
PNGs written beside the page), not embedded.
"""

from __future__ import annotations

import datetime as _dt
import re

from .document import Document, Table

__all__ = ["to_markdown", "to_html", "md_escape"]

_MD = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "$": "&#36;", "~": "&#126;", "[": "&#91;", "]": "&#93;",
       "\n": " ", "\r": " "}


def md_escape(text: object) -> str:
    """*text* as inert markdown: no emphasis, link, code span, math, HTML or table cell break
    (an underscore inside a word, ``toy_agreement``, cannot emphasise and stays as it is)."""
    text = str(text)
    out = []
    for i, ch in enumerate(text):
        inner = ch == "_" and 0 < i < len(text) - 1 and text[i - 1].isalnum() and text[i + 1].isalnum()
        out.append(_MD.get(ch, "\\" + ch if ch in "\\`*_[]|" and not inner else ch))
    return "".join(out)


def _md_table(t: Table) -> list[str]:
    bold = t.bold or [[False] * len(r) for r in t.rows]
    cells = [[f"**{md_escape(x)}**" if b and x else md_escape(x) for x, b in zip(row, flags)]
             for row, flags in zip(t.rows, bold)]
    out = [f"{md_escape(t.title)}:", ""] if t.title else []
    out += ["| " + " | ".join(md_escape(h) for h in t.header) + " |", "|" + "---|" * len(t.header)]
    return out + ["| " + " | ".join(row) + " |" for row in cells] + [""]


def to_markdown(doc: Document) -> str:
    """The whole report as markdown."""
    lines = [f"# {md_escape(doc.title)}", ""]
    for s in doc.summary:
        lines += [md_escape(s), ""]
    for sec in doc.sections:
        sub = f" ({md_escape(sec.sub)})" if sec.sub else ""
        lines += [f"### {md_escape(sec.title)}{sub}", ""]
        for note in sec.notes:
            lines += [md_escape(note), ""]
        for i, table in enumerate(sec.tables):
            lines += _md_table(table)
            if i == 0:  # the figures come after a section's first table
                lines += [f"![{md_escape(alt)}]({file})\n" for file, alt in sec.figures]
    return "\n".join(lines).rstrip() + "\n"


_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;max-width:1180px;margin:2em auto;
padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.6em;margin-bottom:.2em} h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #ddd}
.dir{font-weight:normal;color:#555;font-size:.85em}
table{border-collapse:collapse;margin:.6em 0 1.2em;font-size:.86em}
th,td{border:1px solid #d8d8d8;padding:.25em .6em;text-align:right;white-space:nowrap}
th{white-space:normal;vertical-align:bottom;background:#f3f4f6;font-weight:600}
td:first-child,th:first-child{text-align:left} td.best{font-weight:bold;background:#eaf5ea}
.wrap{overflow-x:auto} img{max-width:100%;height:auto;border:1px solid #eee}
p.note{color:#444;font-size:.9em} caption{caption-side:top;text-align:left;color:#555;padding:.2em 0}
"""

_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{ doc.title }}</title><style>{{ css }}</style></head><body>
<h1>{{ doc.title }}</h1>
<p class="note">Generated {{ now }}.</p>
{% for s in doc.summary %}<p class="note">{{ s }}</p>
{% endfor %}{% if doc.sections %}<p class="note">Sections: {% for sec in doc.sections %}<a href="#s{{ loop.index }}">{{ sec.title }}</a>{% if not loop.last %} · {% endif %}{% endfor %}</p>{% endif %}
{% for sec in doc.sections %}<h2 id="s{{ loop.index }}">{{ sec.title }}{% if sec.sub %} <span class="dir">({{ sec.sub }})</span>{% endif %}</h2>
{% for n in sec.notes %}<p class="note">{{ n }}</p>
{% endfor %}{% for t in sec.tables %}{{ table(t) }}
{% if loop.first %}{% for file, alt in sec.figures %}<p><img alt="{{ alt }}" src="{{ file }}"></p>
{% endfor %}{% endif %}{% endfor %}{% endfor %}</body></html>
"""

_TABLE = """<div class="wrap"><table>{% if t.title %}<caption>{{ t.title }}</caption>{% endif %}<thead><tr>
{%- for h in t.header %}<th>{{ head(h) }}</th>{% endfor %}</tr></thead><tbody>
{%- for row in t.rows %}{% set i = loop.index0 %}<tr>{% for x in row %}<td{% if t.bold and t.bold[i][loop.index0] %} class="best"{% endif %}>{{ x }}</td>{% endfor %}</tr>{% endfor %}
</tbody></table></div>"""


def _head(text: str):
    """A dataset label breaks before its parameters: ``name<br>p=1, q=2``."""
    from markupsafe import Markup, escape

    name, bracket, rest = text.partition("[")
    if not bracket or not rest.endswith("]"):
        return escape(text)
    return Markup("{}<br><small>{}</small>").format(name, ", ".join(re.split(",", rest[:-1])))


def to_html(doc: Document) -> str:
    """The report as one HTML page (figures linked by file name)."""
    from jinja2 import Environment
    from markupsafe import Markup

    env = Environment(autoescape=True)
    table = env.from_string(_TABLE)
    env.globals.update(table=lambda t: Markup(table.render(t=t, head=_head)), css=Markup(_CSS))
    now = _dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    return env.from_string(_PAGE).render(doc=doc, now=now)
