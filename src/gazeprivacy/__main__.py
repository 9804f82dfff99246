# SPDX-License-Identifier: MIT
# Copyright (c) 2026 the gazeprivacy developers
"""``python -m gazeprivacy``: the same command line as ``gazeprivacy``."""

from gazeprivacy.cli.app import main

if __name__ == "__main__":
    main()
