"""One open document in the window: its panes (the document view, a view of the document's
session, fastdesk.review.session), the commands that open, save and export it and review it, and
watching its file on disk.

Modules:

- ``view``: one open document: source, translation, and what belongs to it alone
- ``sending``: when an edit goes to the engine (IME composition respected)
- ``deliveries``: the worker's deliveries read once, by the session, and handed on
- ``block_places``: where the reader is among the source's blocks
- ``block_commands``: the engine's commands on blocks: re-translate, expand, back-translate
- ``target_edits``: the reviewer's typing in the raw target, and undo's records
- ``files``: new, open, save, export, reload
- ``review_commands``: approve, withdraw, revert, settle a changed source; undo and redo
- ``review_view``: the margins, review bar, underlines and queued marks, repainted paced
- ``heal``: the timer of the session's retry schedule
- ``disk_watch``: another program changed a file on disk
- ``second_target``: a second translation beside the first, in another language
"""
