# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""Attacks: threat models, split protocols, the RBFN and classifier re-identification attacks,
attribute inference, and the linkage attack."""

from gazeprivacy.attacks.classifiers import CLASSIFIERS, make_classifier
from gazeprivacy.attacks.inference import InferenceResult, infer_attribute
from gazeprivacy.attacks.linkage import LinkageResult, generalise_k_anonymous, linkage_attack
from gazeprivacy.attacks.rbfn import RBFNClassifier
from gazeprivacy.attacks.reidentification import (
    FUSION_WEIGHTS,
    ReidentificationResult,
    fuse_scores,
    reidentification_attack,
)
from gazeprivacy.attacks.splits import Split, recording_index, split_recordings
from gazeprivacy.attacks.threat import THREAT_MODELS, ThreatModel

__all__ = [
    "CLASSIFIERS",
    "FUSION_WEIGHTS",
    "THREAT_MODELS",
    "InferenceResult",
    "LinkageResult",
    "RBFNClassifier",
    "ReidentificationResult",
    "Split",
    "ThreatModel",
    "fuse_scores",
    "generalise_k_anonymous",
    "infer_attribute",
    "linkage_attack",
    "make_classifier",
    "recording_index",
    "reidentification_attack",
    "split_recordings",
]
