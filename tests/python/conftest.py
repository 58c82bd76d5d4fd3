"""The tests import the package ssa from the checkout (tools/pylib), or,
with SSA_TEST_INSTALLED=1, the one installed in the running Python
(tests/package installs it with pip into a fresh venv and runs them so)."""
import os
import sys

if os.environ.get("SSA_TEST_INSTALLED") != "1":
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "pylib"))
