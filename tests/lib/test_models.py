"""infra_calc.models: the shipped configs, catalog lookup and resolving a model."""
from __future__ import annotations

import ast
import json
from importlib import resources
from pathlib import Path

import pytest
from model_reference import TINY, reference_count

from infra_calc import models
from infra_calc.catalog import Catalog
from infra_calc.models import MODELS, UnknownModelError, model

KiB = 1024


def test_qwen3_8b_exact():
    m = model("Qwen3-8B")
    assert m.params == 8_190_735_360
    assert m.active_params == m.params
    assert m.kv_bytes_per_token() == 147_456 == 144 * KiB
    assert isinstance(m.kv_bytes_per_token(), int)
    assert (m.layers, m.hidden, m.heads, m.kv_heads, m.head_dim) == (36, 4096, 32, 8, 128)
    assert (m.intermediate, m.vocab) == (12288, 151936)
    assert not m.tie_word_embeddings and not m.is_moe
    assert (m.num_experts, m.experts_per_token) == (0, 0)
    assert m.architecture == "Qwen3ForCausalLM"
    assert "Qwen/Qwen3-8B" in m.source
    # Qwen's model card: 8.2B parameters, 6.95B non-embedding
    assert round(m.params / 1e9, 1) == 8.2
    assert round((m.params - 2 * m.vocab * m.hidden) / 1e9, 2) == 6.95


def test_r1_distill_llama_70b_exact():
    m = model("DeepSeek-R1-Distill-Llama-70B")
    assert m.params == 70_553_706_496
    assert m.kv_bytes_per_token() == 327_680 == 320 * KiB
    assert (m.layers, m.hidden, m.heads, m.kv_heads, m.head_dim) == (80, 8192, 64, 8, 128)
    assert (m.intermediate, m.vocab) == (28672, 128256)
    assert not m.tie_word_embeddings and not m.is_moe
    assert m.architecture == "LlamaForCausalLM"
    assert "deepseek-ai/DeepSeek-R1-Distill-Llama-70B" in m.source


@pytest.mark.parametrize("filename, name", [
    ("qwen3-8b.json", "Qwen3-8B"),
    ("deepseek-r1-distill-llama-70b.json", "DeepSeek-R1-Distill-Llama-70B"),
])
def test_shipped_file_is_package_data_and_matches_reference(filename, name):
    res = resources.files("infra_calc").joinpath("data").joinpath("models").joinpath(filename)
    cfg = json.loads(res.read_text(encoding="utf-8"))
    assert model(name).params == reference_count(cfg)
    assert model(name).active_params == reference_count(cfg)


def test_shipped_configs_are_the_hf_files():
    root = resources.files("infra_calc").joinpath("data").joinpath("models")
    qwen = json.loads(root.joinpath("qwen3-8b.json").read_text(encoding="utf-8"))
    assert qwen["model_type"] == "qwen3" and qwen["architectures"] == ["Qwen3ForCausalLM"]
    assert qwen["torch_dtype"] == "bfloat16" and qwen["tie_word_embeddings"] is False
    assert qwen["max_position_embeddings"] == 40960 and qwen["rope_theta"] == 1000000
    r1 = json.loads(root.joinpath("deepseek-r1-distill-llama-70b.json").read_text(encoding="utf-8"))
    assert r1["model_type"] == "llama" and r1["architectures"] == ["LlamaForCausalLM"]
    assert r1["rope_scaling"]["rope_type"] == "llama3" and r1["rope_theta"] == 500000.0
    assert r1["max_position_embeddings"] == 131072 and r1["tie_word_embeddings"] is False


@pytest.mark.parametrize("alias", [
    "Qwen3-8B", "qwen3-8b", "Qwen3 8B", "QWEN3_8B", "qwen3.8b", "qwen-3-8b", "Qwen/Qwen3-8B",
])
def test_qwen_aliases(alias):
    assert model(alias).name == "Qwen3-8B"


@pytest.mark.parametrize("alias", [
    "DeepSeek-R1-Distill-Llama-70B", "deepseek-r1-distill-llama-70b", "deepseek_r1_distill_llama_70b",
    "llama-70b", "Llama 70B", "r1-70b", "R1 70B", "deepseek-ai/DeepSeek-R1-Distill-Llama-70B",
    "llama-3.3-70b",
])
def test_r1_aliases(alias):
    assert model(alias).name == "DeepSeek-R1-Distill-Llama-70B"


def test_model_names_and_mapping():
    assert list(MODELS) == ["Qwen3-8B", "DeepSeek-R1-Distill-Llama-70B", "Llama-3.1-8B",
                             "Llama-2-7B", "Llama-2-70B", "Mixtral-8x7B"]   # + chapter 3's
    assert len(MODELS) == 6
    assert "qwen3 8b" in MODELS and "gpt-5" not in MODELS and 3 not in MODELS
    assert MODELS["r1-70b"] is model("DeepSeek-R1-Distill-Llama-70B")
    assert MODELS.get("gpt-5") is None
    assert dict(MODELS)["Qwen3-8B"].params == 8_190_735_360
    with pytest.raises(TypeError):
        MODELS["x"] = model("qwen3-8b")


def test_unknown_name_lists_known_names():
    with pytest.raises(ValueError) as info:
        model("gpt-5")
    msg = str(info.value)
    assert "gpt-5" in msg and "Qwen3-8B" in msg and "DeepSeek-R1-Distill-Llama-70B" in msg
    assert isinstance(info.value, KeyError) and isinstance(info.value, UnknownModelError)
    assert msg.endswith("(or pass a path to a Hugging Face config.json)")
    with pytest.raises(KeyError):
        MODELS["gpt-5"]


def test_model_type_errors_and_passthrough():
    spec = model("qwen3-8b")
    assert model(spec) is spec
    with pytest.raises(TypeError):
        model(8)


def test_a_number_for_a_model_gets_one_message_everywhere():
    """models.model is the one place that refuses a number where a model goes: a chapter-3
    function, a Workload and model() itself say the same."""
    import numpy as np

    import infra_calc as ic

    calls = [lambda: model(70e9), lambda: model(np.float64(8e9)), lambda: model([1, 2]),
             lambda: ic.Workload(70e9, "H100 SXM"),
             lambda: ic.turning_batch(70e9, "H100 SXM", context=1024)]
    messages = set()
    for call in calls:
        with pytest.raises(TypeError, match="model must be a ModelSpec.*not a number") as info:
            call()
        messages.add(str(info.value).split("(")[0])
    assert len(messages) == 1
    with pytest.raises(TypeError, match="got bool"):
        model(True)


def test_module_avoids_heavy_imports():
    tree = ast.parse(Path(models.__file__).read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            imported.add(node.module.split(".")[0])
    assert not imported & {"sympy", "matplotlib", "ipywidgets"}


def test_model_reads_specs_paths_and_configs(tmp_path):
    spec = model("qwen3-8b")
    assert model(spec) is spec
    assert model("r1-70b").params == 70_553_706_496
    cfg_dir = tmp_path / "tiny-mixtral"
    cfg_dir.mkdir()
    path = cfg_dir / "config.json"
    path.write_text(json.dumps(TINY["mixtral"]))
    expected = reference_count(TINY["mixtral"])
    assert model(str(path)).params == expected
    assert model(path).params == expected
    assert model(str(cfg_dir)).params == expected
    assert model(str(cfg_dir)).name == "tiny-mixtral"
    assert model(TINY["mixtral"]).params == expected
    odd = tmp_path / "weights.cfg"                 # existing file without .json
    odd.write_text(json.dumps(TINY["qwen2"]))
    assert model(str(odd)).params == reference_count(TINY["qwen2"])
    with pytest.raises(ValueError) as info:
        model(str(tmp_path / "missing.json"))
    assert "missing.json" in str(info.value)
    with pytest.raises(ValueError, match="known names"):
        model("no-such-model")
    with pytest.raises(TypeError):
        model(3.5)


def test_listing_names_every_model_once_in_catalog_order_without_parsing_one():
    catalog = Catalog("model", MODELS.path, lambda record: pytest.fail("built"),
                             fields=MODELS._fields, required=MODELS._required[1:])
    lines = catalog.listing()
    assert lines == MODELS.listing()
    assert [line.split(" (")[0] for line in lines] == list(MODELS)
    assert any("(also: " in line for line in lines)


def test_every_entry_names_a_shipped_config():
    root = resources.files("infra_calc").joinpath("data")
    index = json.loads(root.joinpath("models.json").read_text(encoding="utf-8"))["entries"]
    files = sorted(p.name for p in root.joinpath("models").iterdir())
    assert sorted(e["config"] for e in index) == files
    assert all("config.json" in e["source"] for e in index)
