"""The review on screen: the controller that wires a document's review to the window, and the
margin and bar that paint it.

Modules:

- ``controller``: the open document's review, wired for the window
- ``widgets``: the review margin and the review bar
- ``undo``: undo and redo of the editor's own work in the target
- ``back_translation``: blocks' back-translations beside their source
"""
