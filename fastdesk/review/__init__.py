"""The review of a translation: who wrote each block and whether it was checked, its sidecar,
the open document's session, crash-safe autosave, and export of the target and a bilingual
page.

Modules:

- ``model``: the review of one document in one language (``Review``)
- ``records``: the review's records: block states, answers, what a reviewer kept
- ``align``: a review aligned with a new revision; a target edit attributed to blocks
- ``session``: the open document's session in one language: the one owner of its state
- ``target_model``: what the target shows, block by block
- ``backlog``: the blocks waiting for a slot and the pace of a rate-limited document
- ``problems``: what needs the editor's attention, block by block
- ``quality``: the reviewer model's verdicts on what the target shows
- ``corrections``: the editor's approved corrections, as examples and glossary entries
- ``autosave``: unsaved edits copied aside; what a crash left offered back
- ``export``: the target, the translation as HTML, and a bilingual review page
- ``interchange/``: the review as XLIFF 1.2 and PO, for translation tools
"""
