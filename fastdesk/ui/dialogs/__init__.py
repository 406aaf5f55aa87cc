"""Dialogs: Settings (keys, models, preferences) and Compare Providers."""
