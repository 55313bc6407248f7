"""Finding memories in the store: BM25 over word stems through FTS5, and the stored embeddings.

Recall on the reply's path searches here (:func:`search_memory_records`) and loads its
in-memory copy once (:func:`searchable_memories`); the vector math is
:mod:`addon.memory.retrieval`'s. Every function takes the session first.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from addon.store.file import fts_query
from addon.store.memories.memories import (
    RAW_COLUMNS,
    MemoryRecord,
    fetch_rows,
    raw_record,
    sql_number,
)

_WORD = re.compile(r"\w+")
# Recall leaves out words held by more than this share of the memories (or COMMON_FLOOR of them).
COMMON_SHARE = 0.05
COMMON_FLOOR = 50
MAX_QUERY_TERMS = 64
STEM_CHARS = 5


@dataclass(frozen=True, slots=True)
class ScoredId:
    """A memory id with its search score; higher is better."""

    id: int
    score: float


@dataclass(frozen=True, slots=True)
class SearchableMemory:
    """What recall keeps in memory of a live memory; ``vector`` only if made by the model asked."""

    record: MemoryRecord
    vector: bytes | None


def word_stems(text: str) -> list[str]:
    """Every word of ``text`` as recall matches it: folded like the index, cut by :func:`_stem`.

    Folded as the index's tokenizer folds it (unicode61, diacritics removed). Repeats stay (a
    word's count is its term frequency). A stem of ``STEM_CHARS`` characters matches every word
    it begins, so indexing words by stem and matching stems exactly finds what the FTS5 query
    of :func:`_telling_terms` finds (the same stems, each once).
    """
    folded = unicodedata.normalize("NFKD", text.casefold())
    plain = "".join(char for char in folded if not unicodedata.combining(char))
    return [_stem(term) for term in _WORD.findall(plain)]


def _stem(term: str) -> str:
    """A word cut to its first ``STEM_CHARS`` characters, matched as a prefix ("allerg*")."""
    return term[:STEM_CHARS] if len(term) > STEM_CHARS else term


def _prefix(stem: str) -> bool:
    """Whether ``stem`` is matched as a prefix (it may be a cut word) rather than a whole word."""
    return len(stem) == STEM_CHARS


async def _telling_terms(session: AsyncSession, query: str) -> str:
    """The FTS5 query for recall: the words of ``query`` some memory holds, ORed, as stems.

    Each word longer than ``STEM_CHARS`` is matched as a prefix of its first characters, a
    stemmer for every language at once ("allergy" finds "allergic"). A stem in more than
    ``COMMON_SHARE`` of the memories ("the", "is") ranks nothing but costs BM25 a score for each
    of those rows, so it is left out; if every stem is that common, the rarest one stays.
    """
    stems = list(dict.fromkeys(word_stems(query)))[:MAX_QUERY_TERMS]
    if not stems:
        return ""
    # One round trip: each stem's count (summed over the words it begins) and the total.
    ranges = " UNION ALL ".join(
        f"SELECT {i} AS stem, doc FROM memories_fts_terms WHERE "
        + ("term >= ?1 AND term < ?1 || char(1114111)" if _prefix(stem) else "term = ?1").replace(
            "?1", f"?{i + 1}"
        )
        for i, stem in enumerate(stems)
    )
    rows = await fetch_rows(
        session,
        f"SELECT stem, sum(doc), (SELECT count(*) FROM memories) FROM ({ranges}) GROUP BY stem",
        stems,
    )
    if not rows:
        return ""
    counts = {stems[int(sql_number(index))]: int(sql_number(doc)) for index, doc, _total in rows}
    limit = max(COMMON_FLOOR, int(sql_number(rows[0][2])) * COMMON_SHARE)
    present = [stem for stem in stems if counts.get(stem)]
    telling = [stem for stem in present if counts[stem] <= limit] or [
        min(present, key=lambda stem: counts[stem])
    ]
    return " OR ".join(fts_query(stem) + ("*" if _prefix(stem) else "") for stem in telling)


@dataclass(frozen=True, slots=True)
class ScoredRecord:
    """A search hit with its memory, read in the same query (recall saves a round trip)."""

    scored: ScoredId
    record: MemoryRecord


async def search_memory_records(
    session: AsyncSession, query: str, *, limit: int = 20
) -> list[ScoredRecord]:
    """Live memories sharing any telling word stem with ``query``, best BM25 first, with each one.

    The score is ``-bm25()`` (FTS5 gives lower-is-better negatives), so higher is better. Any
    text is safe: :func:`addon.store.file.search.fts_query` quotes every term.
    """
    match = await _telling_terms(session, query)
    if not match:
        return []
    columns = ", ".join(f"m.{column.strip()}" for column in RAW_COLUMNS.split(","))
    rows = await fetch_rows(
        session,
        f"SELECT bm25(memories_fts) AS rank, {columns} FROM memories_fts f "
        "JOIN memories m ON m.id = f.rowid "
        "WHERE memories_fts MATCH ? AND m.deleted_at IS NULL "
        "ORDER BY rank LIMIT ?",
        (match, limit),
    )
    return [
        ScoredRecord(
            ScoredId(int(sql_number(row[1])), -float(sql_number(row[0]))), raw_record(row[1:])
        )
        for row in rows
    ]


async def searchable_memories(session: AsyncSession, model: str | None) -> list[SearchableMemory]:
    """Every live memory, with its embedding if ``model`` made it (recall's copy, at start)."""
    rows = await fetch_rows(
        session,
        f"SELECT {RAW_COLUMNS}, CASE WHEN embedding_model = ? THEN embedding END "
        "FROM memories WHERE deleted_at IS NULL ORDER BY id",
        (model,),
    )
    return [
        SearchableMemory(
            raw_record(row), row[-1] if isinstance(row[-1], bytes) and row[-1] else None
        )
        for row in rows
    ]
