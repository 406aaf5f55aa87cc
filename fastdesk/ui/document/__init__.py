"""One open document in the window: its panes (the document view, a view of the document's
session, fastdesk.review.session), the commands that open, save and export it and review it, and
watching its file on disk."""
