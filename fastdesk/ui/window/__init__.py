"""The main window's frame: menus and actions, the status bar, the first-run panel, crash
recovery and watching the open file on disk."""
