"""Build a word-level tokenizer folder for benchmark tools that cannot download one.

One token per whitespace-separated word: the vocabulary is every word of the corpus files
given (the tools' own prompt corpora, e.g. AIPerf's ``assets/shakespeare.txt``), Faker's lorem
words when Faker is installed (GuideLLM's synthetic prompts), and the stub server's reply words;
anything else is ``[UNK]``. Run it with a Python that has ``tokenizers`` (any venv of the tools):

    python make_tokenizer.py OUT_FOLDER [CORPUS.txt …]

``AutoTokenizer.from_pretrained(OUT_FOLDER)`` then loads it offline.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tokenizers import Tokenizer, models, pre_tokenizers

REPLY_WORDS = "alpha bravo charlie delta echo foxtrot golf hotel"


def main(out: Path, corpora: list[Path]) -> None:
    vocabulary = {"[UNK]": 0}

    def add(text: str) -> None:
        for word in text.split():
            vocabulary.setdefault(word, len(vocabulary))

    for corpus in corpora:
        add(corpus.read_text(encoding="utf-8", errors="replace"))
    try:
        from faker.providers.lorem.en_US import Provider
    except ImportError:
        pass
    else:
        add(" ".join(Provider.word_list))
    add(REPLY_WORDS)
    tokenizer = Tokenizer(models.WordLevel(vocab=vocabulary, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    out.mkdir(parents=True, exist_ok=True)
    tokenizer.save(str(out / "tokenizer.json"))
    config = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "unk_token": "[UNK]",
        "model_max_length": 1000000,
        "clean_up_tokenization_spaces": False,
    }
    (out / "tokenizer_config.json").write_text(json.dumps(config))
    (out / "special_tokens_map.json").write_text(json.dumps({"unk_token": "[UNK]"}))
    print(f"{len(vocabulary)} words in {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1]), [Path(arg) for arg in sys.argv[2:]])
