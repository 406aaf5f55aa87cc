"""The document: Markdown split into blocks with exact spans and put back byte for byte, the
target assembled from per-block answers, and the language codes both sides name."""
