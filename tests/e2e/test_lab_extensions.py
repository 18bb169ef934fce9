"""The JupyterLab that `make lab` starts has every extension it needs, compatible
(issue 18 §5: jupyterlab-myst 2.7.0 needs @jupyter/ydoc 3, which JupyterLab 4.5 ships
and 4.6 does not; requirements.txt pins the pair)."""
import pathlib
import re
import subprocess
import sys

import pytest

pytest.importorskip("jupyterlab")

JUPYTER = pathlib.Path(sys.executable).with_name("jupyter")
NEEDED = ("jupyterlab-myst", "anywidget", "@jupyter-widgets/jupyterlab-manager")


def test_labextensions_are_enabled_and_compatible():
    out = subprocess.run([str(JUPYTER), "labextension", "list"], capture_output=True, text=True,
                         check=True)
    text = re.sub(r"\x1b\[[0-9;]*m", "", out.stdout + out.stderr)
    assert "not compatible" not in text and "Conflicting Dependencies" not in text, text
    for name in NEEDED:
        line = next((ln for ln in text.splitlines() if ln.strip().startswith(name + " ")), "")
        assert re.search(r"\benabled\s+OK\b", line), f"{name}: {line or 'not installed'}\n{text}"


def test_requirements_pin_the_compatible_pair():
    req = (pathlib.Path(__file__).parents[2] / "requirements.txt").read_text(encoding="utf-8")
    pins = dict(re.findall(r"^([\w-]+)==(\S+)", req, re.M))
    assert pins["jupyterlab"].startswith("4.5.") and pins["jupyterlab-myst"] == "2.7.0"
    import jupyterlab
    assert jupyterlab.__version__ == pins["jupyterlab"]
