"""Provider adapters (Groq, Cerebras, any OpenAI-compatible server) and the router."""
