"""Translating a document: plan what memory cannot answer, pack it into requests, stream the
answers, check them, remember them; the live translator keeps a document current while edited."""
