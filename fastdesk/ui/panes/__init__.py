"""The editors: the Markdown source, the raw and rendered target, their highlighting and the
scrolling that keeps them side by side."""
