# SPDX-License-Identifier: GPL-2.0
"""python3 scripts/run/launcher ARGS...: scripts/run/run-guests.sh."""
import os
import sys

# Importable as a package: its parent directory in place of its own (whose
# module names would shadow any others').
sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
from launcher import run  # noqa: E402

sys.exit(run.main(sys.argv[1:]))
