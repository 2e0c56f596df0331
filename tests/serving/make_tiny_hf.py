"""Write a tiny random Llama (hidden 128, 2 layers, head_dim 64) + a locally trained BPE tokenizer.

Run with the vLLM venv's python: python make_tiny_hf.py OUT_DIR (about 15 s, 620 KB, no download).
"""

import sys

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

out = sys.argv[1]
texts = []
for path in ("/usr/share/common-licenses/GPL-3", "/usr/share/common-licenses/Apache-2.0"):
    try:
        texts.append(open(path, errors="ignore").read())
    except OSError:
        pass
texts = texts or ["the quick brown fox jumps over the lazy dog " * 200]
tok = Tokenizer(models.BPE(unk_token="<unk>"))
tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
tok.decoder = decoders.ByteLevel()
trainer = trainers.BpeTrainer(
    vocab_size=512, special_tokens=["<unk>", "<s>", "</s>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
)
tok.train_from_iterator(texts, trainer)
PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", unk_token="<unk>").save_pretrained(out)
cfg = LlamaConfig(
    vocab_size=512,
    hidden_size=128,
    intermediate_size=256,
    num_hidden_layers=2,
    num_attention_heads=2,
    num_key_value_heads=2,
    max_position_embeddings=2048,
    bos_token_id=1,
    eos_token_id=2,
    tie_word_embeddings=False,
)
torch.manual_seed(0)
LlamaForCausalLM(cfg).save_pretrained(out)
