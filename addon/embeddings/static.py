"""A small local embedding model: static token vectors distilled from all-MiniLM-L6-v2.

The model in ``addon/embeddings/model/`` is a table of one vector per WordPiece token of MiniLM's
uncased English vocabulary, made once by ``devtools/distill_embeddings.py`` (model2vec's
distillation: each token through the transformer alone, PCA to a few hundred dimensions, rare
tokens weighted up). A text's embedding is the mean of its tokens' rows, function words left
out (``stopwords.txt``): no transformer runs, so
embedding a question takes tens of microseconds on one core, numpy only, and nothing is fetched
at run time. It knows English; other languages share only names, numbers and word pieces with it,
so a German home is better served by the endpoint's ``/v1/embeddings``.

The tokenizer is BERT's (clean, split CJK ideographs, strip accents, lower-case, split on
whitespace and punctuation, then greedy longest-match WordPiece), written here so the add-on
does not pull in ``tokenizers`` and the Hugging Face hub client for a dictionary lookup; the
distillation script checks it gives the same ids as the reference tokenizer.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from addon.errors import ConfigError

MODEL_DIR = Path(__file__).resolve().parent / "model"
OPTION = "memory_embeddings"
"""The option that chooses this source; errors loading the model name it."""
LOCAL_FLOOR = 0.4
"""Cosines of this model under this are taken for unrelated texts. In a household of ten
memories a weather question's nearest is at 0.22 and questions meet the memory that answers
them at 0.40 ("what's our kitty's name", "The cat is called Miso") to 0.71; among 10,000
memories off-topic questions find neighbours up to 0.46, while the bench's 200 questions meet
their memory at 0.51 and above. See docs/DECISIONS.md, "Recall needs relevance"."""
_MAX_WORD_CHARS = 100
_CACHE_LIMIT = 50_000


@dataclass(frozen=True, slots=True)
class ModelInfo:
    """What ``model.json`` says about the shipped model."""

    name: str
    dims: int
    unk_token: str


def _is_punctuation(char: str) -> bool:
    """BERT's punctuation: ASCII symbols (``$``, ``^``, ``` ` ``` too) and Unicode ``P*``."""
    code = ord(char)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(char).startswith("P")


def _is_cjk(code: int) -> bool:
    """CJK ideographs, which BERT splits into one token each."""
    return (
        0x4E00 <= code <= 0x9FFF
        or 0x3400 <= code <= 0x4DBF
        or 0x20000 <= code <= 0x2A6DF
        or 0x2A700 <= code <= 0x2B73F
        or 0x2B740 <= code <= 0x2B81F
        or 0x2B820 <= code <= 0x2CEAF
        or 0xF900 <= code <= 0xFAFF
        or 0x2F800 <= code <= 0x2FA1F
    )


def _normalize(text: str) -> str:
    """BERT's normalizer: drop controls, pad CJK, strip accents, lower-case."""
    out: list[str] = []
    for char in text:
        code = ord(char)
        if code in (0, 0xFFFD):
            continue
        if char in "\t\n\r" or unicodedata.category(char) == "Zs":
            out.append(" ")
        elif unicodedata.category(char) in ("Cc", "Cf"):
            continue
        elif _is_cjk(code):
            out.append(f" {char} ")
        else:
            out.append(char)
    decomposed = unicodedata.normalize("NFD", "".join(out))
    return "".join(char for char in decomposed if unicodedata.category(char) != "Mn").lower()


def _words(text: str) -> list[str]:
    """BERT's pre-tokenizer: split on whitespace, each punctuation mark a word of its own."""
    words: list[str] = []
    for chunk in _normalize(text).split():
        start = 0
        for at, char in enumerate(chunk):
            if _is_punctuation(char):
                if at > start:
                    words.append(chunk[start:at])
                words.append(char)
                start = at + 1
        if start < len(chunk):
            words.append(chunk[start:])
    return words


class WordPiece:
    """BERT's uncased WordPiece tokenizer over a ``vocab.txt`` (one token a line, id = line)."""

    def __init__(self, vocab: Sequence[str], unk_token: str = "[UNK]") -> None:
        self._ids = {token: index for index, token in enumerate(vocab)}
        if unk_token not in self._ids:
            raise ConfigError(OPTION, f"the local model's vocabulary has no {unk_token!r} token")
        self._unk = self._ids[unk_token]
        self._cache: dict[str, tuple[int, ...]] = {}

    @property
    def unk_id(self) -> int:
        """The id of the unknown token, which embeddings leave out."""
        return self._unk

    def _word_ids(self, word: str) -> tuple[int, ...]:
        """Greedy longest-match-first pieces of one word; ``[UNK]`` if any part has none."""
        if len(word) > _MAX_WORD_CHARS:
            return (self._unk,)
        pieces: list[int] = []
        start = 0
        while start < len(word):
            end = len(word)
            found = None
            while end > start:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                found = self._ids.get(piece)
                if found is not None:
                    break
                end -= 1
            if found is None:
                return (self._unk,)
            pieces.append(found)
            start = end
        return tuple(pieces)

    def ids(self, text: str, *, skip: frozenset[str] = frozenset()) -> list[int]:
        """The token ids of ``text``, without ``[CLS]`` or ``[SEP]``, nor the words in ``skip``."""
        out: list[int] = []
        for word in _words(text):
            if word in skip:
                continue
            known = self._cache.get(word)
            if known is None:
                known = self._word_ids(word)
                if len(self._cache) < _CACHE_LIMIT:
                    self._cache[word] = known
            out.extend(known)
        return out


class StaticEmbeddings:
    """An ``EmbeddingSource``: the mean of the text's token vectors, unit length, float32."""

    def __init__(
        self,
        info: ModelInfo,
        tokenizer: WordPiece,
        table: NDArray[np.float32],
        stop_words: frozenset[str] = frozenset(),
    ) -> None:
        self._info = info
        self._tokenizer = tokenizer
        self._stop_words = stop_words
        self._table = np.ascontiguousarray(table, dtype=np.float32)

    @property
    def model(self) -> str:
        """The name the store keeps beside each vector."""
        return self._info.name

    @property
    def relevance_floor(self) -> float:
        """:data:`LOCAL_FLOOR`, measured on this model (docs/DECISIONS.md)."""
        return LOCAL_FLOOR

    @property
    def dims(self) -> int:
        """The length of every vector."""
        return int(self._table.shape[1])

    def vector(self, text: str) -> NDArray[np.float32]:
        """One text's unit vector; zeros for a text with no known token.

        Function words ("does", "what", "the") are left out unless nothing else is left: in a
        mean they pull "does Anna work at night" towards every memory that says "does".
        """
        unk = self._tokenizer.unk_id
        ids = [i for i in self._tokenizer.ids(text, skip=self._stop_words) if i != unk]
        if not ids:
            ids = [i for i in self._tokenizer.ids(text) if i != unk]
        if not ids:
            return np.zeros(self.dims, dtype=np.float32)
        mean = self._table[ids].mean(axis=0)
        norm = float(np.linalg.norm(mean))
        unit: NDArray[np.float32] = mean / norm if norm else mean
        return unit

    async def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """One row per text, computed in place: far cheaper than a hop to a thread."""
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        return np.stack([self.vector(text) for text in texts])


def load_local_embeddings(directory: Path = MODEL_DIR) -> StaticEmbeddings:
    """Load the shipped static model (``model.json``, ``vocab.txt``, ``embeddings.npy``, ...).

    ``embeddings.npy`` holds int8 rows and ``scales.npy`` one float32 scale per row, a quarter of
    float32's size for no measurable change in ranking. Raises :class:`ConfigError` if the files
    are missing or do not agree.
    """
    try:
        meta = json.loads((directory / "model.json").read_text(encoding="utf-8"))
        vocab = (directory / "vocab.txt").read_text(encoding="utf-8").split("\n")
        quantized = np.load(directory / "embeddings.npy", allow_pickle=False)
        scales = np.load(directory / "scales.npy", allow_pickle=False)
        stop_words = frozenset((directory / "stopwords.txt").read_text(encoding="utf-8").split())
    except (OSError, ValueError) as err:
        raise ConfigError(OPTION, f"cannot load the local model in {directory}: {err}") from err
    if vocab and vocab[-1] == "":
        vocab.pop()
    info = ModelInfo(str(meta["name"]), int(meta["dims"]), str(meta.get("unk_token", "[UNK]")))
    if quantized.shape != (len(vocab), info.dims) or scales.shape != (len(vocab),):
        raise ConfigError(
            OPTION,
            f"the local model in {directory} has {quantized.shape} rows for "
            f"{len(vocab)} tokens of {info.dims} dims",
        )
    table = quantized.astype(np.float32) * scales[:, None].astype(np.float32)
    return StaticEmbeddings(info, WordPiece(vocab, info.unk_token), table, stop_words)
