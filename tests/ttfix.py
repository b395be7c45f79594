"""tests/ttfix.py: what the Python tests that read the fixtures share (imported with tests/ on
sys.path): where a fixture folder is (TT_FIXTURES, default <source root>/../shared/fixtures),
or a skip (exit 77, saying why) when it is absent: never a pass."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.environ.get("TT_SOURCE_ROOT", os.path.join(HERE, ".."))


def fixture_dir(sub, marker, what):
    """The folder `sub` of the fixtures when it holds `marker`; else the test is skipped."""
    fix = os.path.join(os.environ.get("TT_FIXTURES", os.path.join(ROOT, "..", "shared",
                                                                  "fixtures")), sub)
    if not os.path.isfile(os.path.join(fix, marker)):
        print("SKIP: no %s fixtures at %s (set TT_FIXTURES to the fixtures folder)" % (what, fix))
        sys.exit(77)
    return fix
