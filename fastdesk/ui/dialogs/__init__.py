"""Dialogs: Settings (keys, models, preferences) and Compare Providers.

Modules:

- ``settings``: the Settings dialog: keys, connection test, the settings users change
- ``compare``: Compare Providers: ``fastdesk bench`` in the window
- ``source_changed``: deciding on a changed source: what changed, and both texts
- ``glossary_drift``: Review ▸ Glossary Drift: each term as rendered per language and page
"""
