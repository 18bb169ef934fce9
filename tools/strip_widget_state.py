"""Drop saved widget state from notebooks (``metadata.widgets``).

Widget cells are removed from the web pages, so the saved state is dead weight
that would make the HTML load widget JavaScript for nothing.  (nbclient's own
``store_widget_state=False`` crashes on Output widgets, hence this step.)
"""
import json
import pathlib
import sys


def main(paths) -> int:
    for name in paths:
        path = pathlib.Path(name)
        nb = json.loads(path.read_text(encoding="utf-8"))
        if nb.get("metadata", {}).pop("widgets", None) is not None:
            path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
            print(f"stripped widget state: {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
