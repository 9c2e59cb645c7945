"""Policy.from_file has the command's bound: a file above 64 MiB is refused
with the command's message, after reading one byte past the bound (so
/dev/zero fails at once instead of filling memory)."""
import os
import resource

import pytest

import urisan

BOUND = 64 << 20


def test_dev_zero_fails_fast_with_the_commands_message():
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(urisan.PolicyError) as ei:
        urisan.Policy.from_file("/dev/zero")
    assert str(ei.value) == f"/dev/zero: larger than {BOUND} bytes", str(ei.value)
    # at most the bound and a copy of it, never "until the kernel kills it"
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kib < 3 * BOUND // 1024, grown_kib


def test_a_file_at_the_bound_loads_and_one_byte_more_does_not(tmp_path):
    path = tmp_path / "big.policy"
    with open(path, "wb") as f:
        f.write(b"deny userinfo\n")
        f.write(b"#" * (BOUND - 14 - 1) + b"\n")
    assert os.path.getsize(path) == BOUND
    pol = urisan.Policy.from_file(path)
    assert urisan.check("http://u@h/", policy=pol)["verdict"] == "deny"
    with open(path, "ab") as f:
        f.write(b"\n")
    with pytest.raises(urisan.PolicyError, match="larger than 67108864 bytes"):
        urisan.Policy.from_file(path)
