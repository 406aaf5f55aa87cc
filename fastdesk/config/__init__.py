"""What the app reads from and keeps on this computer: settings, API keys, file locations,
redaction of secrets, logs, model lists, local model servers and safe file I/O."""
