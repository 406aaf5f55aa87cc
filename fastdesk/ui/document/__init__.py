"""One open document in the window: its panes and state (the document view), the commands that
open, save and export it, and watching its file on disk."""
