"""Write each learner's option table into docs/learners.md from the options it declares (its
module's OPTIONS; learners/options.py), between the lines ``<!-- options: NAME -->`` and
``<!-- end options -->``.  With --check, change nothing and exit 1 if a table is not current.

    .venv/bin/python scripts/option_tables.py [--check]
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from educable.bridge import registry  # noqa: E402
from educable.learners.options import table  # noqa: E402

PAGE = ROOT / "docs" / "learners.md"
BLOCK = re.compile(r"(<!-- options: (\w+) -->\n)(.*?)(<!-- end options -->)", re.S)


def current(text: str) -> str:
    """``text`` with every marked table written from the learners' declarations."""
    def fill(m: re.Match) -> str:
        learner = m.group(2)
        if learner not in registry.TRAINABLE:
            raise SystemExit(f"{PAGE}: no learner {learner!r}")
        rows = table(registry.learner_module(learner).OPTIONS)
        return m.group(1) + "\n".join(rows) + "\n" + m.group(4)
    return BLOCK.sub(fill, text)


def main() -> int:
    text = PAGE.read_text()
    fresh = current(text)
    if "--check" in sys.argv[1:]:
        if fresh != text:
            print(f"{PAGE.relative_to(ROOT)}: option tables are out of date (run scripts/option_tables.py)")
            return 1
        return 0
    PAGE.write_text(fresh)
    return 0


if __name__ == "__main__":
    sys.exit(main())
