"""GPT-2's configurations (bench/gpt2/gpt2.py says what each is for), apart
from the model so that scripts without PyTorch (bench/gpu/gpt2_summary.py)
read them too."""
import dataclasses


@dataclasses.dataclass(frozen=True)
class Config:
    layers: int
    width: int
    heads: int
    context: int
    vocab: int


CONFIGS = {
    "small": Config(layers=12, width=768, heads=12, context=1024, vocab=50257),
    "mini": Config(layers=6, width=384, heads=6, context=256, vocab=256),
    # (96: mpc's character ids of text, newline and printable ASCII)
    "tiny": Config(layers=2, width=64, heads=4, context=32, vocab=96),
}
