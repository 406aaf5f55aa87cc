"""Translating a document: plan what memory cannot answer, batch it, stream the answers, check
them, remember them; the live session keeps a document current while it is edited."""
