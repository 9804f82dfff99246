# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Text for readers: internal ids and reStructuredText markup out of what a user reads.

Docstrings and records written for developers cite the source papers by the project's ids
(``seed 001``), the specification (``SPEC``) and issue numbers, and mark code with reST roles
(``:func:`kaleido```). :func:`reader_text` turns such text into what a user of the CLI, a record
or the report can read: papers by author and year, no ids, code as plain words (or in
backticks for Markdown).
"""

from __future__ import annotations

import re

__all__ = ["PAPERS", "reader_text"]

#: the source papers by the project's id digit, as a reader cites them
PAPERS = {"0": "Ren, Fan et al. (DPGazeSynth)", "1": "David-John et al. 2023",
          "2": "Bozkir et al. 2021", "3": "Liu et al. 2019", "4": "Steil et al. 2019"}

_ROLE = re.compile(r":[a-z]+:`(~?)([^`<]+?)(?:\s*<[^>]+>)?`")
_SEED = re.compile(r"\b[Ss]eed[ _-]?00([0-4])(?:-clean)?\b")
_ISSUE = re.compile(r"[;,]\s*issues? ?#?\d+\b|\s*\(issues? ?#?\d+\)|\b(?:the )?issue[ -]#?\d+\b ?")
_SPEC = re.compile(r"\bSPEC(?: section)?(?: \d+(?:\.\d+)*)?\b")


def reader_text(text: str, *, markdown: bool = False) -> str:
    """``text`` without internal ids or reST roles.

    ``markdown``: code spans stay in single backticks; otherwise they become plain words.

    >>> reader_text("as re-implemented in seed 001; see :func:`~gazeprivacy.x.kaleido`")
    'as re-implemented in David-John et al. 2023; see kaleido'
    >>> reader_text("``w`` (SPEC section 4, issue 15)", markdown=True)
    '`w` (the specification)'
    """
    def role(m: re.Match[str]) -> str:
        name = m.group(2).rsplit(".", 1)[-1] if m.group(1) else m.group(2)
        return f"`{name}`" if markdown else name

    text = _ROLE.sub(role, text)
    text = text.replace("``", "`" if markdown else "")
    text = _SEED.sub(lambda m: PAPERS[m.group(1)], text)
    text = _ISSUE.sub("", text)
    text = _SPEC.sub("the specification", text)
    return re.sub(r"\(\s*,\s*", "(", re.sub(r",\s*\)", ")", text))
