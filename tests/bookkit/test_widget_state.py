"""bookkit.widget_state: what JupyterLab's save leaves out of a notebook."""
from bookkit.widget_state import WIDGET_VIEW, strip


def test_strip_drops_widget_views_and_state_only():
    nb = {"metadata": {"widgets": {"state": {}}, "kernelspec": {}},
          "cells": [{"cell_type": "code", "outputs": [
              {"output_type": "display_data", "data": {WIDGET_VIEW: {"model_id": "m"},
                                                       "text/plain": "run this cell"}},
              {"output_type": "stream", "text": "x"}]},
              {"cell_type": "markdown", "source": ""}]}
    assert strip(nb) == 2
    assert nb == {"metadata": {"kernelspec": {}},
                  "cells": [{"cell_type": "code", "outputs": [
                      {"output_type": "display_data", "data": {"text/plain": "run this cell"}},
                      {"output_type": "stream", "text": "x"}]},
                      {"cell_type": "markdown", "source": ""}]}
    assert strip(nb) == 0
