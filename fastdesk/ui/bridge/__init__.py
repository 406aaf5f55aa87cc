"""Between the engine and the widgets: the worker thread that owns the engine, the Qt-free
segments it prepares for the panes, and the threading helpers (GC on the GUI thread, paced loop)."""
