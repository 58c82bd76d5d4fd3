"""Documentation/*.rst is valid reStructuredText: docutils parses every
page without an error (a malformed table, a broken indentation, an
unknown role or a dangling reference is an error there)."""

import glob
import io
import os

import pytest

docutils_core = pytest.importorskip("docutils.core", reason="docutils is not installed "
                                    "(tools/bootstrap installs it into .venv)")

TOP = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
PAGES = sorted(glob.glob(os.path.join(TOP, "Documentation", "*.rst")))


@pytest.mark.parametrize("page", PAGES, ids=[os.path.basename(p) for p in PAGES])
def test_page_parses_without_errors(page):
    err = io.StringIO()
    with open(page, encoding="utf-8") as f:
        text = f.read()
    docutils_core.publish_doctree(text, source_path=page, settings_overrides={
        "report_level": 3, "halt_level": 5, "warning_stream": err})
    assert err.getvalue() == "", err.getvalue()
