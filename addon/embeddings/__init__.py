"""Embeddings: one source of text vectors shared by memory recall and a large home's selection."""
