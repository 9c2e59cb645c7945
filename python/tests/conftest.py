import os
import sys

import pytest

# A sanitizer build preloads its runtime into this python (python/meson.build);
# the urisan command the tests run is linked with it already.
SANITIZER_PRELOAD = os.environ.pop("LD_PRELOAD", None)

SRC = os.environ.get("URISAN_SRCDIR", os.path.join(os.path.dirname(__file__), "..", ".."))
EXE = os.environ.get("URISAN_EXE")


@pytest.fixture(scope="session")
def srcdir():
    return SRC


@pytest.fixture(scope="session")
def exe():
    if not EXE or not os.access(EXE, os.X_OK):
        pytest.skip("URISAN_EXE (the urisan command) not set: run through meson test")
    return EXE


def pytest_report_header(config):
    import urisan
    return "urisan %s from %s, Python %s" % (urisan.version(), urisan.__file__, sys.version.split()[0])
