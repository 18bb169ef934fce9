"""`reproduce` must print every number of the source's §7 printouts, in order."""
import re
import subprocess
import sys

import pytest

from infra_calc.reproduce import j07_lines, j13_lines, reproduce

# The source chapters' printouts, verbatim (S23-J07 §7 and S23-J13 §7).
J07_SOURCE = """\
H100 SXM: 80 GB / 3.35 TB/s / 989.4 TFLOP/s(BF16 稠密)
T_read    = 70.00 GB / 3350.00 GB/s = 20.896 ms
T_compute = 140.00 GFLOPs / 989400 GFLOP/s = 0.1415 ms
ratio     = 147.7 x
B*        = 147.7 (b_W=1)
batch 8   : compute 1.132 ms, per-output read 2.612 ms, tput 382.9 tok/s
batch 32  : compute 4.53 ms
batch 148 : compute 20.94 ms -> 计算开始超读取
容量(8bit, 8k 上下文): 73.73 + 2.68 + 2.15 = 78.56 GB <= 80.0 GB
放完权重剩余 6.27 GB;单条 8192-token KV 2.68 GB → 最多 2 条 8k 请求(未计工作区)
A100 同条件 T_read = 34.3 ms;T_compute = 0.449 ms"""

J13_SOURCE = """\
Q 投影 4096×4096(BF16)
M=1 : F 33.55 MFLOPs, V 32.02 MiB, I = 1.0 FLOP/byte
M=64 : F 2147.48 MFLOPs, V 33.00 MiB, I = 62.1 FLOP/byte
M=256 : F 8589.93 MFLOPs, V 36.00 MiB, I = 227.6 FLOP/byte
H100 I* = 989.4/3.35 = 295.3 FLOP/byte → M* ≈ 345 token
η_shape(16 行补齐): 均匀 256×16 = 4096 行 / 集中 8×64 = 512 行 → 8.0×
RTX 4090 24 GB: 权重 16.38 GB, 剩余 5.47 GB;8K 单请求 1.21 GB
4 条 8K = 4.83 GB 可行
5 条 8K = 6.04 GB 超限
16K: 每条 2.42 GB → 可放 2 条"""

NUM = re.compile(r"\d+(?:\.\d+)?")


def numbers(line):
    return NUM.findall(line)


@pytest.mark.parametrize("lines, source", [(j07_lines, J07_SOURCE), (j13_lines, J13_SOURCE)],
                         ids=["j07", "j13"])
def test_every_number_in_order_and_precision(lines, source):
    ours = lines()
    theirs = source.splitlines()
    assert len(ours) == len(theirs)
    for mine, src in zip(ours, theirs, strict=True):
        assert numbers(mine) == numbers(src), (mine, src)


def test_a_changed_input_changes_a_printed_number(monkeypatch):
    """The comparison above is not vacuous: move one source input and a line stops matching."""
    from infra_calc import source as S

    monkeypatch.setattr(S, "J07_PARAMS", 71e9)
    theirs = J07_SOURCE.splitlines()
    assert any(numbers(m) != numbers(t) for m, t in zip(j07_lines(), theirs, strict=True))


def test_verdicts():
    assert "exceeds the read" in j07_lines()[7]
    assert j13_lines()[7].endswith("fits") and j13_lines()[8].endswith("exceeds")


def test_all_and_errors():
    assert reproduce("all") == [*j07_lines(), "", *j13_lines()]
    with pytest.raises(ValueError, match="chapter must be one of"):
        reproduce("j99")


def test_cli_reproduce():
    out = subprocess.run([sys.executable, "-m", "infra_calc", "reproduce", "j07"],
                         capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == j07_lines()
