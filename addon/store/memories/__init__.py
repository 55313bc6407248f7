"""Long-term memories: the records, writes and reads, BM25 search, recall links and pruning.

``memories`` holds the record, its writes and reads; ``memory_search`` BM25 over word stems and the
stored embeddings; ``memory_upkeep`` recall links and pruning.
"""

from addon.store.memories import memories, memory_search, memory_upkeep
from addon.store.memories.memories import KINDS, MemoryRecord
from addon.store.memories.memory_search import ScoredId
from addon.store.memories.memory_upkeep import PrunePolicy

__all__ = [
    "KINDS",
    "MemoryRecord",
    "PrunePolicy",
    "ScoredId",
    "memories",
    "memory_search",
    "memory_upkeep",
]
