"""Data files shipped with fastdesk: price table, sample document, stylesheet, icons."""
