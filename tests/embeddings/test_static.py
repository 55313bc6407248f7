"""The shipped static model: a real embedding, its tokenizer, and recall on it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from addon.embeddings.static import StaticEmbeddings, WordPiece, load_local_embeddings
from addon.errors import ConfigError
from addon.memory.retrieval import RecallQuery, Retriever
from addon.store.database import Store
from addon.store.memories import memories, memory_search


@pytest.fixture(scope="module")
def model() -> StaticEmbeddings:
    """The model in addon/embeddings/model, loaded once."""
    return load_local_embeddings()


def cosine(model: StaticEmbeddings, a: str, b: str) -> float:
    """Cosine of two texts' embeddings (both are unit vectors)."""
    return float(model.vector(a) @ model.vector(b))


def test_similar_sentences_are_closer_than_unrelated_ones(model: StaticEmbeddings) -> None:
    """A question is closer to the memory that answers it than to an unrelated one."""
    question = "what is the name of our cat"
    assert cosine(model, question, "The cat is called Miso") > cosine(
        model, question, "The heating is set to 19 degrees at night"
    )
    warm = "how warm should the bedroom be at night"
    assert cosine(model, warm, "The heating is set to 19 degrees at night") > cosine(
        model, warm, "The cat is called Miso"
    )


def test_synonyms_meet_without_shared_words(model: StaticEmbeddings) -> None:
    """Meaning, not spelling: "physician" is nearer "doctor" than "garage" is."""
    assert cosine(model, "appointment with the physician", "seeing the doctor") > cosine(
        model, "appointment with the physician", "cleaning the garage"
    )


async def test_vectors_are_unit_float32_rows_of_the_models_size(model: StaticEmbeddings) -> None:
    """embed() gives one unit float32 row per text; a text with no known token gives zeros."""
    rows = await model.embed(["The cat is called Miso", "Die Katze heißt Miso", "   "])
    assert rows.shape == (3, model.dims)
    assert rows.dtype == np.float32
    assert np.linalg.norm(rows[:2], axis=1) == pytest.approx([1.0, 1.0], abs=1e-5)
    assert not rows[2].any()
    assert model.model == "minilm-l6-static-256"


def test_wordpiece_splits_as_bert_does() -> None:
    """Lower-cased, accents stripped, punctuation split off, longest pieces first, else [UNK]."""
    vocab = ["[UNK]", "cafe", "un", "##believ", "##able", "!", "miso"]
    tokenizer = WordPiece(vocab)
    assert tokenizer.ids("Café unbelievable! Miso") == [1, 2, 3, 4, 5, 6]
    assert tokenizer.ids("qqq") == [0]
    assert tokenizer.ids("Miso unbelievable", skip=frozenset({"miso"})) == [2, 3, 4]


def test_a_missing_model_names_the_option(tmp_path: Path) -> None:
    """Loading from a folder without the model raises ConfigError naming the option."""
    with pytest.raises(ConfigError, match="memory_embeddings"):
        load_local_embeddings(tmp_path)


async def test_load_embeds_memories_that_have_no_vector_of_the_model(
    store: Store, model: StaticEmbeddings
) -> None:
    """Memories added without a source get the local model's vectors at load, stored."""
    async with store.sessionmaker.begin() as session:
        cat = await memories.add_memory(session, "The cat is called Miso")
        await memories.add_memory(session, "The heating is set to 19 degrees at night")
    retriever = Retriever(store.sessionmaker, model)
    await retriever.load()
    assert len(retriever.index) == 2
    [first, *_] = await retriever.recall(RecallQuery("what's our kitty's name"))
    assert (first.memory.id, first.vector_rank) == (cat.id, 1)
    async with store.sessionmaker() as session:
        stored = await memory_search.searchable_memories(session, model.model)
    assert sum(item.vector is not None for item in stored) == 2
