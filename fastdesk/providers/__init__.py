"""Provider adapters: Groq, Cerebras and any OpenAI-compatible server behind one small interface
(`base`), built from the environment and stored keys (`factory`)."""
