# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""MkDocs hook (mkdocs.yml ``hooks:``): the docstrings use Sphinx roles (``:class:`Guarantee```);
mkdocstrings renders them as ``:class:<code>Guarantee</code>``. Drop the role and a leading
``~`` so the API pages read ``Guarantee``."""

from __future__ import annotations

import re

_ROLE = re.compile(r":(?:class|func|meth|data|attr|mod|exc|obj|const):(<code>)~?")


def on_page_content(html: str, **_: object) -> str:
    """Strip Sphinx roles from a rendered page.

    >>> on_page_content("see :class:<code>~gazeprivacy.data.Dataset</code>")
    'see <code>gazeprivacy.data.Dataset</code>'
    """
    return _ROLE.sub(r"\1", html)
