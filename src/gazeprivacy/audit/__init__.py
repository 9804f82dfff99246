# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Empirical privacy auditing: a black-box lower bound on epsilon for every mechanism.

:func:`~gazeprivacy.audit.auditor.audit` audits one neighbouring pair;
:func:`~gazeprivacy.audit.neighbours.search_worst_pair` searches for the worst pair;
:func:`~gazeprivacy.audit.adapters.audit_mechanism` audits a registered mechanism through its
adapter; :func:`~gazeprivacy.audit.release.audit_release` audits every column of a whole release
on neighbouring datasets; :func:`~gazeprivacy.audit.identification.identification_audit` plays
the k-way identification game against the replace-one bound. See ``docs/audit.md``.
"""

from gazeprivacy.audit.adapters import ADAPTERS, MechanismAudit, audit_mechanism, markdown_table
from gazeprivacy.audit.auditor import AuditResult, audit, epsilon_lower_bound
from gazeprivacy.audit.identification import (
    IdentificationResult,
    identification_audit,
    identification_bound,
)
from gazeprivacy.audit.neighbours import NeighbourPair, NeighbourStrategy, search_worst_pair
from gazeprivacy.audit.release import ReleaseAudit, audit_release

__all__ = [
    "ADAPTERS",
    "AuditResult",
    "IdentificationResult",
    "MechanismAudit",
    "NeighbourPair",
    "NeighbourStrategy",
    "ReleaseAudit",
    "audit",
    "audit_mechanism",
    "audit_release",
    "epsilon_lower_bound",
    "identification_audit",
    "identification_bound",
    "markdown_table",
    "search_worst_pair",
]
