"""Provider adapters: Groq, Cerebras and any OpenAI-compatible server behind one small interface
(`base`), built from the environment and stored keys (`factory`).

Modules:

- ``base``: what every provider speaks: a request in, a stream of events out, the errors
- ``groq``: Groq through its official SDK
- ``cerebras``: Cerebras through its official SDK
- ``openai_compat``: any OpenAI-compatible server, without an SDK
- ``sdk``: what the SDK-based adapters share, and the request details all three read
- ``http_client``: the HTTP client the three adapters share
- ``sse``: reading a streamed answer (Server-Sent Events) into ``base``'s events
- ``headers``: what servers' headers and error texts say about waiting and limits
- ``errors``: what a server or an SDK raised, as ``base``'s errors with safe messages
- ``factory``: the configured providers, from the environment, keys and chosen models
- ``batch_api``: a provider's Batch API (Groq's files and batches): a job in, its answers out
"""
