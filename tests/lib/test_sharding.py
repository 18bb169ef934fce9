"""infra_calc.sharding: what each of n cards holds under tensor parallelism."""
import pytest

import infra_calc as ic
from infra_calc.sharding import card_share, check_cards


@pytest.mark.parametrize("name, cards, message", [
    ("llama-70b", 3, "divide the 64 query heads"),
    ("llama-70b", 12, "divide the 64 query heads"),
    ("Qwen3-8B", 6, "divide the 32 query heads"),
    ("Llama-2-7B", 64, "divide the 32 query heads"),
    ("Llama-2-7B", 0, ">= 1"),
])
def test_cards_that_do_not_split_are_refused_naming_cards(name, cards, message):
    with pytest.raises(ValueError, match=f"cards.*({message})"):
        check_cards(ic.model(name), cards)


def test_kv_heads_not_a_multiple_are_refused():
    cfg = {"model_type": "llama", "vocab_size": 50, "hidden_size": 48, "intermediate_size": 64,
           "num_hidden_layers": 2, "num_attention_heads": 12, "num_key_value_heads": 4}
    m = ic.ModelSpec.from_hf_config(cfg, name="toy")
    assert check_cards(m, 4) == 4 and check_cards(m, 12) == 12
    with pytest.raises(ValueError, match="cards must divide the 4 KV heads"):
        check_cards(m, 3)                       # divides 12 query heads, not 4 KV heads
    with pytest.raises(ValueError, match="cards must divide the 12 query heads"):
        check_cards(m, 8)


def test_one_card_holds_everything():
    m = ic.model("Mixtral-8x7B")
    s = card_share(m, cards=1)
    assert (s.heads, s.kv_heads, s.kv_copies) == (32, 8, 1)
    assert s.of(m, m.params) == m.params and s.of_matmul(m, m.matmul_params) == m.matmul_params


def test_split_then_replicate():
    m = ic.model("llama-70b")                # 64 query heads, 8 KV heads
    for n, kv, copies in ((2, 4, 1), (8, 1, 1), (16, 1, 2), (64, 1, 8)):
        s = card_share(m, cards=n)
        assert (s.heads, s.kv_heads, s.kv_copies) == (64 / n, kv, copies)
        # every card holds its share; together they hold the model plus the copies
        kvp = m.kv_projection_params
        together = n * s.of(m, m.params)
        assert together == pytest.approx(m.params + (n - 1) * m.vector_params
                                         + (copies - 1) * kvp)
